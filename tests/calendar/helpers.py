"""Shared helpers of the calendar tests: the namespace root and quick writers over REST."""

from __future__ import annotations

import datetime
from typing import Any

from host.testing import client_as, create_test_user

API = "/wp-json/cal/events/v1"
LONDON = {"timezone_string": "Europe/London"}


def new_event(client, expect: int = 201, **fields) -> dict:
    fields.setdefault("title", "An event")
    fields.setdefault("status", "publish")
    fields.setdefault("start_date", "2030-06-10 09:00:00")
    fields.setdefault("end_date", "2030-06-10 10:00:00")
    return client.post_json(f"{API}/events", fields, status=expect).json


def new_venue(client, **fields) -> dict:
    fields.setdefault("venue", "Main hall")
    return client.post_json(f"{API}/venues", fields, status=201).json


def new_organizer(client, **fields) -> dict:
    fields.setdefault("organizer", "School office")
    return client.post_json(f"{API}/organizers", fields, status=201).json


def cached_calendar_site(make_app) -> tuple[Any, Any, dict, dict, dict]:
    """(app, administrator client, venue, category, event) on a London site with the cache plugin on: the
    event "Judo" at the venue "Old gym" in the category "Clubs", as the cached-page tests start."""
    app = make_app(plugins=["core", "calendar", "cache"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    venue = new_venue(admin, venue="Old gym")
    category = admin.post_json(f"{API}/categories", {"name": "Clubs"}, status=201).json
    event = new_event(admin, title="Judo", venue=venue["id"], categories=[category["id"]])
    return app, admin, venue, category, event


def local_today(zone: str = "Europe/London") -> datetime.date:
    from zoneinfo import ZoneInfo

    return datetime.datetime.now(ZoneInfo(zone)).date()


def titles(response) -> list[str]:
    return [event["title"] for event in response.json["events"]]
