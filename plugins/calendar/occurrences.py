"""Occurrences as the REST API shows them: GET events/{id}/occurrences/{start}, and the JSON list's
page when repeating events count once per occurrence inside its window (plugins/calendar/listing.py).

The rules themselves (expansion, overrides, bounds) are recurrence.py's.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate
from sqlalchemy import and_, func, select
from sqlalchemy.sql.util import ClauseAdapter

from host import RestError, Route

from . import state
from .events import check_readable, load_event, rows_of as event_rows, shape_events
from .linked import images_by_id, linked_items, venue_object
from .names import EVENT, NAMESPACE, VENUE
from .recurrence import (ENDS_BY, as_occurrence, changed_occurrences, changed_texts, occurrence_slice, occurrences,
                         parse_occurrence_key, recurring_ids, rows_of)
from .tables import tables


def get_occurrence(request):
    """GET events/{id}/occurrences/{start}: one occurrence of a repeating event (§1.4's checks first)."""
    item = load_event(request, int(request.params["id"]))
    unlocked = check_readable(request, item)
    start = parse_occurrence_key(request.params["start"])
    row = event_rows(request, [item["id"]]).get(item["id"])
    series = rows_of(request.session, request.app, [item["id"]]).get(item["id"])
    found = [] if start is None or row is None or series is None else \
        [entry for entry in occurrences(request.app, row, series, start, start) if entry[0] == start]
    if not found:
        raise RestError("rest-occurrence-not-found", "The event has no occurrence starting then.", 404)
    _start, end, original = found[0]
    data = shape_events(request, [item], single=True, unlocked=unlocked)[0]
    override = series["overrides"].get(original) if original is not None else None
    changed = changed_texts(data, override, override_venues(request, [override] if override else []))
    return as_occurrence(request, data, start, end, changed)


def override_venues(request, overrides: list[dict]) -> dict[int, dict]:
    """{venue id: venue object} of the venues changed occurrences name (those the caller may read)."""
    ids = list(dict.fromkeys(override["venue_id"] for override in overrides if override and override["venue_id"]))
    if not ids:
        return {}
    venues = linked_items(request, ids, VENUE)
    images = images_by_id(request, [venue["featured_media"] for venue in venues.values()])
    return {venue_id: venue_object(request, venue, images.get(venue["featured_media"], False))
            for venue_id, venue in venues.items()}


def routes(app) -> list:
    class OccurrenceArgs(Schema):
        id = fields.Integer(required=True, metadata={"description": "The event id."})
        start = fields.String(required=True, validate=validate.Length(min=16, max=16), metadata={
            "description": "The occurrence's start in UTC, as iCalendar writes it (20300617T080000Z)."})
        password = fields.String(validate=validate.Length(max=255), metadata={
            "description": "The event's password, when it has one."})

    return [Route(NAMESPACE, r"/events/(?P<id>\d+)/occurrences/(?P<start>\d{8}T\d{6}Z)", "GET", get_occurrence,
                  args=OccurrenceArgs, title="event occurrence", cacheable=True)]


# --- the JSON list (§1.2) with repeating events -------------------------------------------------

def ids_at(request, version: int) -> frozenset[int]:
    """The repeating events' ids, read once per calendar version in this process."""
    return request.app.kept("calendar.recurring_ids", 1).get_or_build(
        "ids", version, lambda: frozenset(recurring_ids(request.session, request.app)))


def expanded_page(request, filters: list, dated: list, bounds: dict, repeating: set[int], size: int,
                  page: int, total_key: tuple | None, version: int) -> tuple[int, list[tuple]]:
    """(total, page) of a list window where repeating events count once per occurrence inside it.

    `filters` are the list's clauses but its dates, `dated` its date clauses (which single events
    meet by their own times); page entries are (event id, occurrence start, end, original start of
    a changed occurrence), the last three None for single events. The single events' count is kept
    per (`total_key`, calendar version) as the plain list's total is (None: always counted).
    """
    events = tables(request.app)["events"]
    single = [*filters, *dated, events.c.post_id.not_in(repeating)]

    def count_single() -> int:  # every single event in the window: 10 ms over 50,000 of them
        return request.session.execute(select(func.count()).select_from(events).where(and_(*single))).scalar() or 0

    total = count_single() if total_key is None else \
        state.totals(request.app).get_or_build(("single", total_key), version, count_single)
    entries: list[tuple] = [(row.start_utc, row.post_id, None, None, None) for row in request.session.execute(
        select(events.c.start_utc, events.c.post_id).where(and_(*single))
        .order_by(events.c.start_utc, events.c.post_id).limit(page * size)).all()]
    series_where = list(filters)
    for name in ("end", ENDS_BY, "starts_before"):
        if name in bounds:
            series_where.append(events.c.start_utc <= bounds[name])
    series_rows = [dict(row._mapping) for row in request.session.execute(_series_rows(events, repeating,
                                                                                        series_where))]
    series = rows_of(request.session, request.app, [row["post_id"] for row in series_rows])
    for row in series_rows:  # each series counts by its slice, and offers at most the page's worth
        starts, low, high = occurrence_slice(request.app, row, series[row["post_id"]], bounds)
        total += high - low
        duration = row["end_utc"] - row["start_utc"]
        entries.extend((start, row["post_id"], start, start + duration, None)
                       for start in starts[low:min(high, low + page * size)])
        changed = changed_occurrences(request.app, row, series[row["post_id"]], bounds)
        total += len(changed)
        entries.extend((start, row["post_id"], start, end, original) for start, end, original in changed)
    entries.sort(key=lambda entry: (entry[0], entry[1]))
    chosen = entries[(page - 1) * size:page * size]
    return total, [(event_id, start, end, original) for _sort, event_id, start, end, original in chosen]


def _series_rows(events, repeating: set[int], where: list):
    """The repeating events' rows that meet `where`: read by key first, then filtered.

    Written as one statement with the key among the filters, SQLite (which keeps no statistics here)
    walked the status and start index over the whole window instead, taking the status equality for
    a selective one: 8 ms at 50,000 events in the window, against 0.05 by key. The rows read by key
    are a materialized CTE, which neither database folds back into one statement.
    """
    by_key = select(events).where(events.c.post_id.in_(repeating)).cte("series_rows").prefix_with("MATERIALIZED")
    adapter = ClauseAdapter(by_key)
    return select(by_key).where(*[adapter.traverse(clause) for clause in where])


def shape_page(request, chosen: list, version: int, listed) -> list:
    """The page's objects: single events as the list keeps them, occurrences as their own objects."""
    single_ids = list(dict.fromkeys(event_id for event_id, start, _end, _original in chosen if start is None))
    series_ids = list(dict.fromkeys(event_id for event_id, start, _end, _original in chosen if start is not None))
    listed_singles = listed(request, single_ids, version) if single_ids else []
    if len(listed_singles) != len(single_ids):  # an event without its post: match them by id
        listed_singles = []
        found = request.app.content.get_many(request, single_ids, EVENT)
        single_ids = [event_id for event_id in single_ids if event_id in found]
        listed_singles = shape_events(request, [found[event_id] for event_id in single_ids])
    singles = dict(zip(single_ids, listed_singles))
    items = request.app.content.get_many(request, series_ids, EVENT)
    shaped = {data["id"]: data for data in shape_events(request, [items[i] for i in series_ids if i in items])}
    changed_ids = [event_id for event_id, _start, _end, original in chosen if original is not None]
    overrides = {event_id: series["overrides"] for event_id, series in
                 rows_of(request.session, request.app, list(dict.fromkeys(changed_ids))).items()}
    venues = override_venues(request, [overrides.get(event_id, {}).get(original) for event_id, _start, _end, original
                                       in chosen if original is not None])
    page = []
    for event_id, start, end, original in chosen:
        if start is None:
            if event_id in singles:
                page.append(singles[event_id])
        elif event_id in shaped:
            override = overrides.get(event_id, {}).get(original) if original is not None else None
            page.append(as_occurrence(request, shaped[event_id], start, end,
                                      changed_texts(shaped[event_id], override, venues)))
    return page
