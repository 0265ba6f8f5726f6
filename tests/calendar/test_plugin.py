"""The calendar as a plugin: discovery, /doc, settings, statuses, disabling it, and its demo content."""

from __future__ import annotations

import pytest

from webtest import TestApp

from host.app import create_app
from host.testing import assert_in_root_index, assert_not_in_root_index, assert_rest_error, client_as, create_test_user

from tests.calendar.helpers import API, LONDON, new_event

NAMESPACE = "cal/events/v1"


def test_discovery_and_doc(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    assert_in_root_index(app, NAMESPACE)
    index = app.client.get(f"{API}").json
    assert index["namespace"] == NAMESPACE
    assert {f"/{NAMESPACE}/events", f"/{NAMESPACE}/venues/(?P<id>\\d+)", f"/{NAMESPACE}/tags"} <= set(index["routes"])
    events_args = index["routes"][f"/{NAMESPACE}/events"]["endpoints"][0]["args"]
    for name in ("page", "per_page", "start_date", "end_date", "starts_before", "starts_after", "ends_before",
                 "ends_after", "strict_dates", "search", "categories", "tags", "venue", "organizer", "featured",
                 "status", "geoloc", "geoloc_lat", "geoloc_lng", "include", "post_parent", "ticketed"):
        assert name in events_args, name
    assert events_args["per_page"]["default"] == 10 and events_args["strict_dates"]["default"] is False
    create_args = index["routes"][f"/{NAMESPACE}/events"]["endpoints"][1]["args"]
    assert create_args["status"]["enum"] == ["publish", "future", "draft", "pending", "private"]
    doc = app.client.get(f"{API}/doc").json
    assert doc["openapi"].startswith("3.")
    assert all(path.startswith(f"/wp-json/{NAMESPACE}") for path in doc["paths"])
    assert f"/wp-json/{NAMESPACE}/events/{{id}}" in doc["paths"]
    parameters = {parameter["name"] for parameter in doc["paths"][f"/wp-json/{NAMESPACE}/events"]["get"]["parameters"]}
    assert {"start_date", "venue", "strict_dates"} <= parameters
    openapi = app.client.get("/openapi.json").json
    assert doc["paths"][f"/wp-json/{NAMESPACE}/events"] == openapi["paths"][f"/wp-json/{NAMESPACE}/events"]


def test_statuses_follow_the_plugin_and_disabling_keeps_the_data(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    assert "cal-ignored" in app.registry.status_names("cal_event")
    assert {"cal-ea-success", "cal-ea-failed", "cal-ea-schedule", "cal-ea-pending", "cal-ea-draft"} <= set(
        app.registry.status_names("cal_import"))
    assert "cal-ea-success" not in app.registry.status_names("post")
    admin = client_as(app, create_test_user(app, "administrator"))
    event = new_event(admin, title="Kept while disabled")

    settings = app.settings
    settings.disabled = ["calendar"]
    disabled = create_app(settings)  # the same database, the calendar disabled
    try:
        disabled.client = client = TestApp(disabled, extra_environ={"HTTP_HOST": "school.test"})
        assert_not_in_root_index(disabled, NAMESPACE)
        assert_rest_error(client.get(f"{API}/events", status=404), "rest_no_route", 404)
        assert_rest_error(client.get(f"{API}/events/{event['id']}", status=404), "rest_no_route", 404)
        assert not any(name.startswith("cal-") for name in disabled.registry.statuses)
        assert "cal_event" not in disabled.registry.post_types
    finally:
        disabled.close()
    settings.disabled = []
    again = create_app(settings)
    try:
        client = TestApp(again, extra_environ={"HTTP_HOST": "school.test"})
        assert client.get(f"{API}/events/{event['id']}").json["title"] == "Kept while disabled"
    finally:
        again.close()


def test_switched_off_in_settings(make_app):
    app = make_app(plugins=["core", "calendar"], config={"calendar": {"enabled": False}})
    assert_not_in_root_index(app, NAMESPACE)
    assert_rest_error(app.client.get(f"{API}/events", status=404), "rest_no_route", 404)
    from host.config import ConfigError

    with pytest.raises(ConfigError, match=r"\[plugins.calendar\]: currency_code = 'pounds' is not valid"):
        make_app(plugins=["core", "calendar"], config={"calendar": {"currency_code": "pounds"}})


def test_currency_settings(make_app):
    app = make_app(plugins=["core", "calendar"], config={"calendar": {"currency_symbol": "€", "currency_code": "EUR",
                                                                       "currency_position": "postfix"}})
    admin = client_as(app, create_test_user(app, "administrator"))
    event = new_event(admin, cost="12.50")
    assert event["cost"] == "12.50€"
    assert event["cost_details"] == {"currency_symbol": "€", "currency_code": "EUR", "currency_position": "postfix",
                                     "values": ["12.50"]}


def test_demo_content_is_a_school_year(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    app.install_site(demo=True)
    client = app.client
    year = client.get(f"{API}/events", {"start_date": "2000-01-01", "end_date": "2100-01-01", "per_page": 50}).json
    titles = [event["title"] for event in year["events"]]
    assert "Autumn term starts" in titles and "Summer term ends" in titles
    assert sum(1 for title in titles if title.startswith(("Football:", "Netball:"))) == 12
    trip = next(event for event in year["events"] if event["title"] == "Year 7 outdoor education trip")
    assert trip["start_date"][:10] < trip["end_date"][:10]  # several days
    term = next(event for event in year["events"] if event["title"] == "Autumn term starts")
    assert term["all_day"] is True and term["categories"][0]["name"] == "Term dates"
    evening = next(event for event in year["events"] if event["title"] == "Year 11 parents' evening")
    assert evening["venue"]["venue"] == "Riverside School main hall"
    assert evening["organizer"][0]["organizer"] == "Riverside School office"
    assert "Autumn disco (cancelled)" not in titles and "Spring concert" not in titles
    admin = client_as(app, create_test_user(app, "administrator"))
    assert [event["title"] for event in admin.get(f"{API}/events", {"status": "draft", "start_date": "2000-01-01",
                                                                    "end_date": "2100-01-01"}).json["events"]] == [
        "Spring concert"]
    trashed = admin.get("/wp-json/core/v2/cal_events", {"status": "trash"}).json
    assert [item["title"]["rendered"] for item in trashed] == ["Autumn disco (cancelled)"]


def test_scripts_of_other_origins_may_read_the_list_totals(make_app):
    """The lists' X-CAL-Total / X-CAL-TotalPages are in Access-Control-Expose-Headers (Route.expose_headers),
    on a first answer and on the response cache's copy; other routes expose only the host's headers."""
    from host.testing import client_as, create_test_user

    from tests.calendar.helpers import API, LONDON, new_event, new_venue

    app = make_app(plugins=["core", "calendar", "cache"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    new_event(admin, title="Open evening", start_date="2030-06-05 18:00", end_date="2030-06-05 20:00")
    new_venue(admin, venue="Main hall")
    origin = {"Origin": "https://parents.school.test"}
    for path in (f"{API}/events?start_date=2030-06-01", f"{API}/events?start_date=2030-06-01", f"{API}/venues",
                 f"{API}/categories"):
        response = app.client.get(path, headers=origin)
        assert response.headers["Access-Control-Allow-Origin"] == origin["Origin"]
        exposed = [name.strip() for name in response.headers["Access-Control-Expose-Headers"].split(",")]
        assert exposed == ["X-WP-Total", "X-WP-TotalPages", "Link", "X-CAL-Total", "X-CAL-TotalPages"], path
        assert response.headers["X-CAL-Total"] == ("0" if path.endswith("categories") else "1")
    cached = app.client.get(f"{API}/events?start_date=2030-06-01", headers=origin)
    assert cached.headers["X-Cache"] == "hit" and "X-CAL-TotalPages" in cached.headers["Access-Control-Expose-Headers"]
    first_id = cached.json["events"][0]["id"]
    one = app.client.get(f"{API}/events/{first_id}", headers=origin)
    assert one.headers["Access-Control-Expose-Headers"] == "X-WP-Total, X-WP-TotalPages, Link"
