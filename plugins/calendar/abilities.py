"""The calendar's ability: upcoming events, as the public event list answers them to the caller."""

from __future__ import annotations

from host import Ability, RestError

from .names import NAMESPACE


def _upcoming(request, value: dict) -> list[dict]:
    query = {"per_page": value.get("per_page", 5)}
    if value.get("search"):
        query["search"] = value["search"]
    # REST on purpose: the ability answers as this plugin's own events route does, errors included.
    answer = request.internal_get(f"/{NAMESPACE}/events", **query)
    if not answer.ok:
        error = answer.data if isinstance(answer.data, dict) else {}
        raise RestError(error.get("code", "rest_error"), error.get("message", "The request failed."), answer.status)
    return [{"id": event["id"], "title": event["title"], "start_date": event["start_date"],
             "end_date": event["end_date"], "all_day": bool(event.get("all_day")), "url": event["url"]}
            for event in answer.data.get("events", [])]


ABILITIES = [
    Ability("calendar/upcoming-events", "Upcoming events", "The next events of the school calendar, soonest first "
            "(in the site's time zone).", "content", lambda request, value: request.user.can("read"), _upcoming,
            input_schema={"type": "object", "properties": {
                "search": {"type": "string", "maxLength": 200},
                "per_page": {"type": "integer", "minimum": 1, "maximum": 50}}, "additionalProperties": False},
            output_schema={"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "integer"}, "title": {"type": "string"}, "start_date": {"type": "string"},
                "end_date": {"type": "string"}, "all_day": {"type": "boolean"}, "url": {"type": "string"}},
                "required": ["id", "title", "start_date", "url"]}},
            readonly=True, idempotent=True),
]
