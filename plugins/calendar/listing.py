"""The event list (§1.2): the window in the site's zone, every filter, one indexed walk of `cal_events`."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from sqlalchemy import and_, bindparam, func, or_, select

from host import RestError, RestResponse, decode_item, encode_item, invalid_param

from . import common, linked, occurrences, recurrence, state, times
from .events import blank_protected, shape_events
from .names import CATEGORY, EVENT, ORGANIZER, TAG, VENUE
from .settings import settings_of
from .tables import linked_to, tables

BOUNDS = ("starts_before", "starts_after", "ends_before", "ends_after")
# start_date and end_date bound each event on its own side (recurrence.STARTS_FROM, ENDS_BY: the
# keys occurrence_slice reads too); events already under way are listed with ends_after instead.
STARTS_FROM, ENDS_BY = recurrence.STARTS_FROM, recurrence.ENDS_BY


def _status_clause(events, statuses: list[str], now, due: bool):
    """The statuses asked for; with `due`, also the `future` events whose publication time has come."""
    clause = events.c.status.in_(statuses)
    if due:
        return or_(clause, and_(events.c.status == "future", events.c.published_utc <= now))
    return clause


def _due(request, events, statuses: list[str], now, version: int) -> bool:
    """Whether a `future` event whose publication time has come must read as published.

    Such events are rare and brief (core publishes them on their next write), so the plain IN,
    which keeps the walk on the (status, start) index, is used unless one exists right now. The
    earliest future publication time is read once per calendar version (every event write bumps
    it) and for at most a minute, like the kept totals.
    """
    if "publish" not in statuses or "future" in statuses:
        return False
    def earliest() -> tuple:  # in a 1-tuple: None (no future event) is an answer too
        statement = request.app.db.prepared("calendar.earliest_future", lambda: select(
            func.min(events.c.published_utc)).where(events.c.status == "future"))
        return (request.session.connection().execute(statement).scalar(),)

    kept = request.app.kept("calendar.earliest_future", 1, state.KEPT_SECONDS)
    (found,) = kept.get_or_build("earliest", version, earliest)
    return found is not None and found <= now


def _window_statements(app, by_venue: bool):
    """The page and count of a date window (the default list), or of a window at some venues:
    built once per app, since building them costs more than running them."""
    events, links = tables(app)["events"], tables(app)["links"]
    where = [events.c.status.in_(bindparam("statuses", expanding=True)), events.c.hide_from_listings.is_(False),
             events.c.start_utc >= bindparam("start"), events.c.end_utc <= bindparam("end"),
             events.c.start_utc <= bindparam("end")]  # implied by the end: keeps the walk on the start index
    if by_venue:
        where.append(linked_to(events, links, "venue", bindparam("venues", expanding=True)))
    page = (select(events.c.post_id).where(*where).order_by(events.c.start_utc, events.c.post_id)
            .limit(bindparam("limit")).offset(bindparam("offset")))
    return page, select(func.count()).select_from(events).where(*where)


def _total(request, events, where: list, version: int, now, key: tuple | None, prepared=None) -> int:
    """COUNT of the filtered rows, kept per (filter `key`, calendar version) in this process for a minute.

    A total depends only on the calendar's tables, whose every write bumps the version; lists
    filtered by search or terms depend on core's tables too and are always counted (key None).
    """
    def count() -> int:
        if prepared is not None:
            return request.session.connection().execute(*prepared).scalar() or 0
        return request.session.execute(select(func.count()).select_from(events).where(and_(*where))).scalar() or 0

    if key is None:
        return count()
    return state.totals(request.app).get_or_build(key, version, count)


def _date(request, name: str, tz):
    try:
        return times.parse_text(request.params[name], tz)
    except ValueError:
        raise invalid_param({name: "Invalid date."}) from None


def window(request) -> dict:
    """{start, end, starts_before, ...}: naive UTC bounds, and the local texts for rest_url.

    The default window (no dates sent) depends only on the local date: it is worked out once a
    day per zone and setting, and shared, so callers must not change what they get.
    """
    params, tz = request.params, request.app.timezone()
    if params.get("include"):
        return {"bounds": {}, "texts": {}}
    given = {name for name in ("start_date", "end_date", *BOUNDS) if params.get(name)}
    now_local = times.to_local(times.utcnow(), tz).replace(tzinfo=None)
    if given:
        return _window(request, tz, given, now_local)
    key = (tz, now_local.date(), settings_of(request.app).list_months)
    return request.app.kept("calendar.default_window", 1).get_or_build(
        "default", key, lambda: _window(request, tz, given, now_local))


def _window(request, tz, given: set[str], now_local: datetime.datetime) -> dict:
    params = request.params
    strict = bool(params.get("strict_dates"))
    bounds: dict = {}
    texts: dict = {}
    use_defaults = not (given & set(BOUNDS))
    if "start_date" in given:
        start = _date(request, "start_date", tz)
        start = start if strict else times.start_of_day(start)
    elif use_defaults:
        # Events that start on or after yesterday 00:00, local (the real calendar's default start,
        # "yesterday 23:59", taken to the beginning of its day as whole days are by default).
        start = times.start_of_day(now_local - datetime.timedelta(days=1))
    else:
        start = None
    if "end_date" in given:
        end = _date(request, "end_date", tz)
        end = end if strict else times.end_of_day(end)
    elif use_defaults:
        # The window reaches `list_months` past today, or past start_date when that is later.
        base = max(now_local, start) if start is not None else now_local
        end = times.end_of_day(times.months_ahead(base, settings_of(request.app).list_months))
    else:
        end = None
    if start is not None:
        bounds[STARTS_FROM], texts["start_date"] = times.to_utc(start, tz), times.text(start)
    if end is not None:
        bounds[ENDS_BY], texts["end_date"] = times.to_utc(end, tz), times.text(end)
    for name in BOUNDS:
        if name in given:
            value = _date(request, name, tz)
            value = value if strict else times.end_of_day(value)
            bounds[name], texts[name] = times.to_utc(value, tz), times.text(value)
    if STARTS_FROM in bounds and ENDS_BY in bounds and bounds[ENDS_BY] < bounds[STARTS_FROM]:
        raise invalid_param({"end_date": "The end date must not be before the start date."})
    return {"bounds": bounds, "texts": texts}


@dataclass(frozen=True)
class _Shaped:
    """A kept event object: only its encoding (2 KB, where the dict took 4 KB and more); requests
    that need a dict (internal ones, _fields, blanking) decode it, which is cheaper than a deep copy."""
    encoded: object  # the event object, never blanked, encoded once (host.encode_item)
    protected: bool  # has a password
    owner: dict  # what the edit_post check needs


def listed_events(request, ids: list[int], version: int) -> list:
    """The page's event objects; the anonymous view is kept per (REST root, id, calendar version) for a minute.

    Every write to an event, venue, organizer or event term bumps the version (the plugin's
    content hooks and its term routes); the minute covers what no hook reports (an image or a
    term edited through core/v2). Blanking for passwords is decided per request.
    """
    app = request.app
    if request.user.is_authenticated:
        # What a signed-in caller sees of linked venues, organizers and images depends on who they
        # are (a draft venue, a private image): only the anonymous view is kept.
        items = app.content.get_many(request, ids, EVENT)
        return shape_events(request, [items[event_id] for event_id in ids if event_id in items])
    kept = state.shapes(app)
    found: dict[int, _Shaped] = {}
    for event_id in ids:
        entry = kept.get((request.base_url, event_id), version)
        if entry is not None:
            found[event_id] = entry
    missing = [event_id for event_id in ids if event_id not in found]
    if missing:
        items = app.content.get_many(request, missing, EVENT)
        ordered = [items[event_id] for event_id in missing if event_id in items]
        for item, data in zip(ordered, shape_events(request, ordered, open_all=True)):
            owner = {key: item[key] for key in ("id", "type", "status", "author", "pre_trash_status")}
            entry = _Shaped(encode_item(data), bool(item["password"]), owner)
            kept.put((request.base_url, item["id"]), version, entry)
            found[item["id"]] = entry
    page = []
    for event_id in ids:
        entry = found.get(event_id)
        if entry is None:
            continue
        if entry.protected and not request.user.can("edit_post", entry.owner):
            data = decode_item(entry.encoded)
            blank_protected(data)
            page.append(data)
        else:
            page.append(entry.encoded if request.plain else decode_item(entry.encoded))
    return page


def _clauses(events, statuses: list[str], now, due: bool, include: list[int], bounds: dict):
    """(where, before_dates, after_dates): the status and listing clauses, then the date clauses
    at where[before_dates:after_dates] (expanded_page handles those apart)."""
    where = [_status_clause(events, statuses, now, due)]
    if include:
        where.append(events.c.post_id.in_(include))
    else:
        where.append(events.c.hide_from_listings.is_(False))
    before_dates = len(where)
    if STARTS_FROM in bounds:
        where.append(events.c.start_utc >= bounds[STARTS_FROM])
    if ENDS_BY in bounds:
        where.append(events.c.end_utc <= bounds[ENDS_BY])
        where.append(events.c.start_utc <= bounds[ENDS_BY])  # implied: keeps the walk on the start index
    if "starts_before" in bounds:
        where.append(events.c.start_utc <= bounds["starts_before"])
    if "starts_after" in bounds:
        where.append(events.c.start_utc > bounds["starts_after"])
    if "ends_before" in bounds:
        where.append(events.c.end_utc <= bounds["ends_before"])
    if "ends_after" in bounds:
        where.append(events.c.end_utc > bounds["ends_after"])
    return where, before_dates, len(where)


def list_events(request):
    params, app = request.params, request.app
    if params.get("geoloc") is not None or params.get("geoloc_lat") is not None \
            or params.get("geoloc_lng") is not None:
        if (params.get("geoloc_lat") is None) != (params.get("geoloc_lng") is None):
            missing = "geoloc_lng" if params.get("geoloc_lng") is None else "geoloc_lat"
            raise invalid_param({missing: "geoloc_lat and geoloc_lng must be sent together."})
        name = "geoloc" if params.get("geoloc") is not None else "geoloc_lat"
        raise invalid_param({name: "Geolocation filters need the calendar's geolocation extension, "
                                         "which is not installed on this site."})
    if params.get("ticketed") is not None:
        raise invalid_param({"ticketed": "The ticketed filter needs the ticketing extension, "
                                               "which is not installed on this site."})
    statuses = common.statuses_for(request, EVENT, params.get("status"))
    events = tables(app)["events"]
    links = tables(app)["links"]
    now = times.utcnow()
    version, longest = state.read(request.session, app)
    due = _due(request, events, statuses, now, version)
    include = [int(event_id) for event_id in params.get("include") or []]
    dates = window(request)
    bounds = dates["bounds"]
    # Only the window (start and end) and statuses: the prepared statements serve it.
    plain = not due and set(bounds) == {STARTS_FROM, ENDS_BY} and not include and not any(
        params.get(name) not in (None, [], "") for name in ("featured", "post_parent", "organizer",
                                                             "categories", "tags", "search"))
    repeating = occurrences.ids_at(request, version) if not include else set()
    # The prepared walk needs no clauses: they are built only for a statement built from them.
    where, before_dates, after_dates = ([], 0, 0) if plain and not repeating else \
        _clauses(events, statuses, now, due, include, bounds)
    if params.get("featured") is not None:
        where.append(events.c.featured.is_(bool(params["featured"])))
    if params.get("post_parent") is not None:
        parent = app.content.get(request, int(params["post_parent"]), EVENT)
        if parent is None:  # the real plugin checks it as an argument (its validate callback) before anything
            raise invalid_param({"post_parent": "Invalid parameter."})
        where.append(events.c.parent == parent["id"])
    for kind, post_type in (("venue", VENUE), ("organizer", ORGANIZER)):
        wanted = list(dict.fromkeys(params.get(kind) or []))
        if wanted:
            ids_of_type = app.content.matching_ids(request, post_type)
            found = set(request.session.execute(
                ids_of_type.where(ids_of_type.selected_columns[0].in_(wanted))).scalars())
            missing = [item_id for item_id in wanted if item_id not in found]
            if missing:
                raise invalid_param({kind: f"{missing[0]} is not the id of a {kind}."})
            where.append(linked_to(events, links, kind, wanted))
    terms = {}
    for name, taxonomy in (("categories", CATEGORY), ("tags", TAG)):
        if params.get(name):
            terms[taxonomy] = linked.resolve_terms(request, taxonomy, params[name], name)
    if params.get("search") or terms:
        where.append(events.c.post_id.in_(app.content.matching_ids(
            request, EVENT, search=params.get("search") or "", terms=terms)))
    size, page = common.per_page(request), int(params.get("page") or 1)
    prepared = None
    if plain:
        venues = list(dict.fromkeys(params.get("venue") or []))
        name = "calendar.window_at_venues" if venues else "calendar.window"
        prepared = app.db.prepared(name, lambda: _window_statements(app, bool(venues)))
        values = {"statuses": list(statuses), "start": bounds[STARTS_FROM], "end": bounds[ENDS_BY]}
        if venues:
            values["venues"] = venues
    # `due` too: once a scheduled event's time has come it is listed before the scheduler publishes it (and
    # bumps the version), so a total kept at this version without it would leave it out.
    key = None if params.get("search") or terms else (
        tuple(statuses), tuple(sorted(bounds.items())), tuple(include), params.get("featured"),
        params.get("post_parent"), tuple(params.get("venue") or ()), tuple(params.get("organizer") or ()), longest,
        due)
    if repeating:  # repeating events count once per occurrence in the window (recurrence.py)
        total, chosen = occurrences.expanded_page(request, where[:before_dates] + where[after_dates:],
                                                 where[before_dates:after_dates], bounds, repeating, size, page,
                                                 key, version)
        ids = [entry[0] for entry in chosen]
    elif prepared is not None:
        total = _total(request, events, where, version, now, key, prepared=(prepared[1], values))
        # The page's ids, kept as its total is: a list read again at the same version runs no statement but the version's.
        ids = state.pages(app).get_or_build((key, size, page), version, lambda: list(
            request.session.connection().execute(prepared[0], {**values, "limit": size, "offset": (page - 1) * size})
            .scalars()))
    else:
        total = _total(request, events, where, version, now, key)
        ids = [row[0] for row in request.session.execute(
            select(events.c.post_id).where(and_(*where)).order_by(events.c.start_utc, events.c.post_id)
            .limit(size).offset((page - 1) * size)).all()]
    if page > 1 and not ids:
        raise RestError("event-archive-page-not-found", "The requested event archive page does not exist.", 404)
    shaped = occurrences.shape_page(request, chosen, version, listed_events) if repeating \
        else listed_events(request, ids, version)
    pages = common.total_pages(total, size)
    body = {"events": shaped, **common.page_links(request, "events", _url_query(request, page, size, dates["texts"]),
                                                  page, pages, lambda: True, lambda: total > 0, page_in_url=True),
            "total": total, "total_pages": pages}
    return RestResponse(body, 200, {"X-CAL-Total": str(total), "X-CAL-TotalPages": str(pages)})


def _url_query(request, page: int, size: int, texts: dict) -> dict:
    """The rest_url's query in the real plugin's order of arguments, `status` always named."""
    params = request.params
    query = {"page": page, "per_page": size, "start_date": texts.get("start_date"), "end_date": texts.get("end_date")}
    for name in ("search", "categories", "tags", "venue", "organizer", "featured", "status", "post_parent", "include"):
        if name == "status":
            query["status"] = common.status_in_url(request, params.get("status"))
        elif request.has_param(name) and params.get(name) not in (None, "", []):
            query[name] = params[name]
    query.update((name, texts[name]) for name in BOUNDS if name in texts)
    if params.get("strict_dates"):
        query["strict_dates"] = True
    return query
