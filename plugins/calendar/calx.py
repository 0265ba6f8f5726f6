"""calx/v1 (§2): events, venues and organizers as core-style entities, lists as bare arrays.

The same posts and `cal_events` rows as cal/events/v1: writes go through that namespace's
handlers (same checks, same storage), so an event written through either API reads the same
through the other; only the answer's shape differs (core's post representation plus the event
properties of §2.4).

The experimental gate of §2.1 (a header acknowledging an "experimental" API) is dropped: the
header is a vendor's disclaimer, not behaviour a client relies on, and sitehost versions this
namespace like the others. A client that still sends it is not refused.
"""

from __future__ import annotations

import datetime
from urllib.parse import quote_plus

from marshmallow import Schema, ValidationError, fields, validate
from sqlalchemy import and_, delete as sql_delete, exists, func, select

from host import RestError, RestResponse, Route, forbidden, invalid_param
from host.args import Paged

from . import common, event_routes, places, state, times
from .events import rows_of, shape_events, sync_status
from .names import CATEGORY, EVENT, ORGANIZER, TAG, VENUE
from .onboarding import preferences
from .schemas import (
    EventCreateArgs, EventUpdateArgs, MAX_TERMS, OrganizerFields, OrganizerUpdateArgs, VenueFields, VenueUpdateArgs,
)
from .tables import linked_to, tables
from .routes import namespace_document

NAMESPACE = "calx/v1"
STATUSES = ("publish", "pending", "draft", "future", "private")
ORDERBY = ("date", "event_date", "title", "menu_order", "modified")
US_NAMES = ("United States", "USA", "US")  # the country whose region is its state (elsewhere: the province)
MAX_DISPLAY_DAYS = 366  # displays_on of a longer event names its first year of days
KINDS = {"events": EVENT, "venues": VENUE, "organizers": ORGANIZER}


# --- arguments -------------------------------------------------------------------------------

def _unique(values):
    if values is not None and len(set(values)) != len(values):
        raise ValidationError("Items must be unique.")


def _ids(description: str) -> fields.Field:
    return fields.List(fields.Integer(validate=validate.Range(min=1)), validate=[validate.Length(max=MAX_TERMS), _unique],
                       metadata={"description": description, "uniqueItems": True})


def _when(description: str) -> fields.Field:
    return fields.String(validate=validate.Length(max=times.MAX_DATE_TEXT),
                         metadata={"description": description, "format": "date-time"})


class PageArgs(Paged.with_bounds(description="Items per page (1 to 100).", page_description="Page.")):
    """page and per_page (1 to 100, default 10)."""


def _status_field() -> fields.Field:
    return fields.List(fields.String(validate=validate.OneOf(STATUSES)), load_default=lambda: ["publish"],
                       validate=[validate.Length(min=1, max=len(STATUSES)), _unique],
                       metadata={"description": "Statuses to list (others than publish only for those who may "
                                                "edit every item of the type; anyone else gets publish).",
                                 "uniqueItems": True, "default": ["publish"]})


class EventListArgs(PageArgs):
    start_date = _when("Events that end on or after this date-time (site time unless it has an offset).")
    end_date = _when("Events that start on or before this date-time.")
    search = fields.String(validate=validate.Length(max=1000), metadata={"description": "Text to search for."})
    categories = _ids("Events in any of these event categories.")
    tags = _ids("Events with any of these event tags.")
    venue = _ids("Events at any of these venues.")
    organizer = _ids("Events of any of these organizers.")
    featured = fields.Boolean(metadata={"description": "Only featured (true) or only other (false) events."})
    status = _status_field()
    post_parent = fields.Integer(validate=validate.Range(min=0), metadata={"description": "Events of this parent."})
    starts_before = _when("Events that start on or before this date-time.")
    starts_after = _when("Events that start after this date-time.")
    ends_before = _when("Events that end on or before this date-time.")
    ends_after = _when("Events that end after this date-time.")
    ticketed = fields.Boolean(metadata={"description": "Only events with tickets (none: this site sells no "
                                                       "tickets) or only without."})
    orderby = fields.String(load_default="event_date", validate=validate.OneOf(ORDERBY),
                            metadata={"description": "Sort by this attribute."})
    order = fields.String(load_default="ASC", validate=validate.OneOf(["ASC", "DESC"]),
                          metadata={"description": "Sort order."})


class PlaceListArgs(PageArgs):
    search = fields.String(validate=validate.Length(max=1000), metadata={"description": "Text to search for."})
    event = fields.Integer(validate=validate.Range(min=1), metadata={"description": "Only those of this event."})
    has_events = fields.Boolean(metadata={"description": "Only those with (true) or without (false) events."})
    only_with_upcoming = fields.Boolean(load_default=False, metadata={"description": "Only those with events "
                                                                                     "to come."})
    status = _status_field()


class IdArgs(Schema):
    id = fields.Integer(required=True, metadata={"description": "The item id."})


class DeleteArgs(IdArgs):
    force = fields.Boolean(load_default=False, metadata={"description": "Delete for good (true) or move to the "
                                                                        "trash (false)."})


class DocsArgs(Schema):
    pass


# --- permissions -----------------------------------------------------------------------------

def _item_of(request, post_type: str):
    item = request.app.content.get(request, int(request.params["id"]))
    return item if item is not None and item["type"] == post_type else None


def can_read(post_type: str):
    """Public for published items; otherwise read_post (the handler answers 404 for nothing found)."""
    def check(request):
        item = _item_of(request, post_type)
        if item is not None and item["status"] != "publish" and not request.user.can("read_post", item):
            raise forbidden(request.user)
        return True
    return check


# Route keywords of creating an item: edit_posts, refused in the real route's words.
CREATE = {"capability": "edit_posts",
          "refusal": ("rest_cannot_create", "Sorry, you are not allowed to create items of this type.")}


def _may(action: str, post_type: str):
    """The permission check of editing or deleting (`action`) an item of `post_type`.

    The item's own capability (edit_post / delete_post, which weigh its author and status) when
    the id names one; else the type's (edit_posts / delete_posts), and the handler answers the 404.
    """
    def check(request):
        item = _item_of(request, post_type)
        allowed = request.user.can(f"{action}_post", item) if item is not None else request.user.can(f"{action}_posts")
        if not allowed:
            raise forbidden(request.user, f"rest_cannot_{action}", f"Sorry, you are not allowed to {action} this item.")
        return True
    return check


def can_edit(post_type: str):
    return _may("edit", post_type)


def can_delete(post_type: str):
    return _may("delete", post_type)


def listed_statuses(request, post_type: str) -> list[str]:
    """§2.3: statuses other than publish only for users who may edit every item of the type (editors);
    anyone else is silently given publish."""
    wanted = list(request.params.get("status") or ["publish"])
    if wanted != ["publish"] and not request.user.can("edit_others_posts"):
        return ["publish"]
    return wanted


# --- entity shape (§2.4) -----------------------------------------------------------------------

def _iso(value) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M:%S") if value else None


def _text(value) -> str:
    return times.text(value) if value else ""


def _post_entity(request, item: dict, rest_base: str) -> dict:
    """Core's post representation of a calendar post."""
    site = request.base_url[: -len(request.app.settings.rest_prefix)] if request.app.settings.rest_prefix \
        and request.base_url.endswith(request.app.settings.rest_prefix) else request.base_url
    link = common.permalink(request, item)
    date_gmt = item["date_gmt"] or times.to_utc(item["date"], request.app.timezone())
    protected = bool(item["password"])
    return {
        "id": item["id"], "date": _iso(item["date"]), "date_gmt": _iso(date_gmt),
        "guid": {"rendered": f"{site}/?p={item['id']}"}, "modified": _iso(item["modified"]),
        "modified_gmt": _iso(item["modified_gmt"]), "slug": item["slug"], "status": item["status"],
        "type": item["type"], "link": link, "title": {"rendered": item["title"]},
        "content": {"rendered": item["content"], "protected": protected},
        "excerpt": {"rendered": item["excerpt"], "protected": protected},
        "author": item["author"], "featured_media": item["featured_media"], "comment_status": "closed",
        "ping_status": "closed", "template": "", "format": "standard",
        "class_list": class_list(item), "rest_url": f"{request.base_url}/{NAMESPACE}/{rest_base}/{item['id']}",
    }


def class_list(item: dict) -> list[str]:
    """The classes a theme's post_class() prints for the item, as core's posts answer them (no post formats)."""
    classes = [f"post-{item['id']}", item["type"], f"type-{item['type']}", f"status-{item['status']}"]
    if item["password"]:
        classes.append("post-password-required")
    if item["featured_media"]:
        classes.append("has-post-thumbnail")
    classes.append("hentry")
    for taxonomy in (CATEGORY, TAG):
        classes.extend(f"{taxonomy}-{slug}" for _term_id, slug in item["terms"].get(taxonomy, []))
    return classes


def _date_object(moment: datetime.datetime, tz) -> dict:
    """A date as the real model's PHP DateTime encodes to JSON: text with microseconds, zone type 3 (a name)."""
    local = moment.astimezone(tz)
    return {"date": local.strftime("%Y-%m-%d %H:%M:%S.%f"), "timezone_type": 3, "timezone": str(tz)}


def event_dates(start_utc: datetime.datetime, end_utc: datetime.datetime, event_zone, site_zone) -> dict:
    """`dates`: start and end in the event's zone, in UTC, in the site's zone, and as displayed (the
    event's zone: the calendar shows each event in its own zone)."""
    dates = {}
    for name, moment in (("start", start_utc), ("end", end_utc)):
        aware = moment.replace(tzinfo=times.UTC)
        dates.update({name: _date_object(aware, event_zone), f"{name}_utc": _date_object(aware, times.UTC),
                      f"{name}_site": _date_object(aware, site_zone), f"{name}_display": _date_object(aware, event_zone)})
    return {key: dates[key] for key in ("start", "start_utc", "start_site", "start_display",
                                        "end", "end_utc", "end_site", "end_display")}


PROTECTED_KEEP = ("id", "date", "date_gmt", "modified", "modified_gmt", "status", "type", "link", "title", "rest_url",
                  "start_date", "start_date_utc", "end_date", "end_date_utc", "dates", "timezone", "class_list")


def _hide_protected(request, item: dict, data: dict, unlocked: bool) -> dict:
    """§2.4: a password-protected entity keeps its ids, dates, status, type, link and title only."""
    if not item["password"] or unlocked or request.user.can("edit_post", item):
        return data
    return {key: value for key, value in data.items() if key in PROTECTED_KEEP}


def _week_bounds(now_local: datetime.datetime, week_start: int) -> tuple[datetime.date, datetime.date]:
    """Monday-is-0 weekday of python against the 0-Sunday week start of the settings."""
    offset = (now_local.isoweekday() % 7 - week_start) % 7
    first = now_local.date() - datetime.timedelta(days=offset)
    return first, first + datetime.timedelta(days=6)


def event_entities(request, items: list[dict], unlocked: set[int] | None = None) -> list[dict]:
    """Entities of `items` (content-service dicts), everything linked read once per page."""
    if not items:
        return []
    shaped = {data["id"]: data for data in shape_events(request, items, open_all=True)}
    rows = rows_of(request, [item["id"] for item in items])
    chosen = preferences(request.app, request.session)
    now = times.utcnow()
    entities = []
    for item in items:
        v1 = shaped[item["id"]]
        row = rows.get(item["id"])
        start_utc = row["start_utc"] if row else times.parse_text(v1["utc_start_date"], times.UTC)
        end_utc = row["end_utc"] if row else times.parse_text(v1["utc_end_date"], times.UTC)
        tz = times.zone(v1["timezone"]) if times.is_zone(v1["timezone"]) else request.app.timezone()
        start_local, end_local = times.to_local(start_utc, tz), times.to_local(end_utc, tz)
        first_day, last_day = start_local.date(), end_local.date()
        if v1["all_day"] is False and end_local.time() == datetime.time() and last_day > first_day:
            last_day -= datetime.timedelta(days=1)  # an event ending at midnight does not show on the next day
        week_first, week_last = _week_bounds(times.to_local(now, tz), chosen.week_start)
        in_week_start, in_week_end = max(first_day, week_first), min(last_day, week_last)
        this_week_days = (in_week_end - in_week_start).days + 1 if in_week_start <= in_week_end else 0
        days = min((last_day - first_day).days + 1, MAX_DISPLAY_DAYS)
        venues = v1["venue"] if isinstance(v1["venue"], list) else [v1["venue"]]
        organizers = v1["organizer"]
        data = _post_entity(request, item, "events")
        data.update({
            "sticky": bool(v1["sticky"]),
            "tags": [term_id for term_id, _slug in item["terms"].get(TAG, [])],
            CATEGORY: [term_id for term_id, _slug in item["terms"].get(CATEGORY, [])],
            "start_date": v1["start_date"], "start_date_utc": v1["utc_start_date"],
            "end_date": v1["end_date"], "end_date_utc": v1["utc_end_date"],
            "dates": event_dates(start_utc, end_utc, tz, request.app.timezone()), "timezone": v1["timezone"],
            "duration": int((end_utc - start_utc).total_seconds()),
            "multiday": last_day > first_day, "is_past": start_utc < now,  # the real model's rule: begun, not ended
            "is_now": start_utc <= now <= end_utc,
            "all_day": bool(v1["all_day"]),
            "starts_this_week": week_first <= first_day <= week_last,
            "ends_this_week": week_first <= last_day <= week_last,
            "happens_this_week": this_week_days > 0, "this_week_duration": this_week_days,
            "displays_on": [(first_day + datetime.timedelta(days=n)).isoformat() for n in range(days)],
            "featured": bool(v1["featured"]), "cost": v1["cost"],
            "organizer_names": [organizer["organizer"] for organizer in organizers if organizer.get("organizer")],
            "organizers": [organizer["id"] for organizer in organizers],
            "venues": [venue["id"] for venue in venues if venue],
            "ticketed": False,
            "schedule_details": _schedule(start_local, end_local, bool(v1["all_day"]), False),
            "short_schedule_details": _schedule(start_local, end_local, bool(v1["all_day"]), True),
        })
        entities.append(_hide_protected(request, item, data, item["id"] in (unlocked or set())))
    return entities


def _schedule(start: datetime.datetime, end: datetime.datetime, all_day: bool, short: bool) -> str:
    """"June 10, 2030 @ 9:00 am - 10:00 am" (short: the time only when the event is today's)."""
    def day(value):
        return f"{value:%B} {value.day}, {value.year}" if not short else f"{value:%B} {value.day}"

    def clock(value):
        return f"{value.hour % 12 or 12}:{value.minute:02d} {'am' if value.hour < 12 else 'pm'}"

    if all_day:
        return day(start) if start.date() == end.date() else f"{day(start)} - {day(end)}"
    if start.date() == end.date():
        return f"{day(start)} @ {clock(start)} - {clock(end)}"
    return f"{day(start)} @ {clock(start)} - {day(end)} @ {clock(end)}"


def place_entities(request, kind: str, items: list[dict]) -> list[dict]:
    """Venues and organizers: core's post representation plus their fields."""
    spec = places.KINDS[kind]
    entities = []
    for item in items:
        data = _post_entity(request, item, spec["plural"])
        data[spec["name_field"]] = item["title"].strip()
        for key in spec["meta"]:
            data[key] = item["meta"].get(key) or ""
        if kind == "venue":
            data["state_province"] = _state_province(item["meta"])
            data["directions_link"] = directions_link(item["meta"])
            data["show_map"] = bool(item["meta"].get("show_map", True))
            data["show_map_link"] = bool(item["meta"].get("show_map_link", True))
        entities.append(_hide_protected(request, item, data, False))
    return entities


def _state_province(meta: dict) -> str:
    return meta.get("stateprovince") or meta.get("state") or meta.get("province") or ""


def directions_link(meta: dict) -> str:
    """A map search for the venue's address (address, city, region, zip, country), or "" without one.

    The real plugin HTML-escapes the ampersands of this URL (`&#038;`); a JSON field carries it plain.
    """
    region = meta.get("state") if (meta.get("country") or "").strip() in US_NAMES else meta.get("province")
    parts = [str(meta.get(key) or "").strip() for key in ("address", "city")] + [str(region or "").strip()] + \
        [str(meta.get(key) or "").strip() for key in ("zip", "country")]
    wanted = " ".join(part for part in parts if part)
    if not wanted:
        return ""
    return "https://maps.google.com/maps?f=q&source=s_q&hl=en&geocode=&q=" + quote_plus(wanted)


# --- lists (§2.3) -----------------------------------------------------------------------------

def _page_or_404(request, found: list, page: int, plural: str) -> None:
    """The real archive's code, `tec_rest_<type>_page_not_found`, with this namespace's neutral prefix."""
    if page > 1 and not found:
        raise RestError(f"calx_rest_{plural}_page_not_found", "The requested page was not found.", 404)


def _when_value(request, name: str) -> datetime.datetime:
    tz = request.app.timezone()
    try:
        return times.to_utc(times.parse_text(request.params[name], tz), tz)
    except ValueError:
        raise invalid_param({name: "Invalid date."}) from None


def list_events(request):
    params, app = request.params, request.app
    events, links = tables(app)["events"], tables(app)["links"]
    statuses = listed_statuses(request, EVENT)
    where = [events.c.status.in_(statuses), events.c.hide_from_listings.is_(False)]
    for name, clause in (("start_date", lambda v: events.c.end_utc >= v), ("end_date", lambda v: events.c.start_utc <= v),
                         ("starts_before", lambda v: events.c.start_utc <= v),
                         ("starts_after", lambda v: events.c.start_utc > v),
                         ("ends_before", lambda v: events.c.end_utc <= v), ("ends_after", lambda v: events.c.end_utc > v)):
        if params.get(name):
            where.append(clause(_when_value(request, name)))
    if params.get("featured") is not None:
        where.append(events.c.featured.is_(bool(params["featured"])))
    if params.get("post_parent") is not None:
        where.append(events.c.parent == int(params["post_parent"]))
    if params.get("ticketed") is True:
        where.append(events.c.post_id < 0)  # no event sells tickets here
    for kind in ("venue", "organizer"):
        if params.get(kind):
            where.append(linked_to(events, links, kind, params[kind]))
    terms = {taxonomy: params[name] for name, taxonomy in (("categories", CATEGORY), ("tags", TAG)) if params.get(name)}
    descending = params["order"] == "DESC"
    if params["orderby"] == "event_date":
        if params.get("search") or terms:
            where.append(events.c.post_id.in_(app.content.matching_ids(request, EVENT, search=params.get("search") or "",
                                                                        terms=terms)))
        ordered = [events.c.start_utc.desc(), events.c.post_id.desc()] if descending \
            else [events.c.start_utc, events.c.post_id]
        query = select(events.c.post_id).where(and_(*where)).order_by(*ordered)
    else:
        query = app.content.matching_ids(request, EVENT, status=statuses, search=params.get("search") or "",
                                         terms=terms, order=params["orderby"], descending=descending)
        query = query.where(query.selected_columns[0].in_(select(events.c.post_id).where(and_(*where))))

    def load(ids):
        items = app.content.get_many(request, ids, EVENT)
        return [items[i] for i in ids if i in items]
    return _page(request, query, load, event_entities, "events")


def _page(request, query, load, shape, plural: str):
    size, page = int(request.params["per_page"]), int(request.params["page"])
    total = request.session.execute(select(func.count()).select_from(query.order_by(None).subquery())).scalar() or 0
    ids = [row[0] for row in request.session.execute(query.limit(size).offset((page - 1) * size)).all()]
    _page_or_404(request, ids, page, plural)
    return RestResponse.collection(request, shape(request, load(ids)), total, size, page)


def list_places(kind: str):
    spec = places.KINDS[kind]

    def handler(request):
        params, app = request.params, request.app
        events, links = tables(app)["events"], tables(app)["links"]
        query = app.content.matching_ids(request, spec["type"], status=listed_statuses(request, spec["type"]),
                                         search=params.get("search") or "", order="title")
        post_id = query.selected_columns[0]
        has_link = exists().where(links.c.linked_id == post_id, links.c.kind == kind)
        if params.get("event") is not None:
            query = query.where(exists().where(links.c.linked_id == post_id, links.c.kind == kind,
                                               links.c.event_id == int(params["event"])))
        if params.get("has_events") is True:
            query = query.where(has_link)
        elif params.get("has_events") is False:
            query = query.where(~has_link)
        if params.get("only_with_upcoming"):
            query = query.where(exists().where(links.c.linked_id == post_id, links.c.kind == kind,
                                               events.c.post_id == links.c.event_id, events.c.status == "publish",
                                               events.c.end_utc >= times.utcnow()))

        def load(ids):
            items = app.content.get_many(request, ids, spec["type"])
            return [items[i] for i in ids if i in items]
        return _page(request, query, load, lambda req, items: place_entities(req, kind, items), spec["plural"])
    return handler


# --- single, create, update, delete (§2.4) --------------------------------------------------------

def _load(request, post_type: str) -> dict:
    item = _item_of(request, post_type)
    if item is None:
        raise RestError("rest_post_invalid_id", "The entity could not be read.", 404)
    return item


def get_event(request):
    return event_entities(request, [_load(request, EVENT)])[0]


def _reread_event(request, event_id: int) -> dict:
    return event_entities(request, [request.app.content.get(request, event_id, EVENT)], unlocked={event_id})[0]


def create_event(request):
    answer = event_routes.create_event(request)
    data = _reread_event(request, answer.data["id"])
    return RestResponse.created(data, data["rest_url"])


def update_event(request):
    _load(request, EVENT)
    updated = event_routes.update_event(request)
    return _reread_event(request, updated["id"])


def delete_event(request):
    item = _load(request, EVENT)
    if request.params.get("force"):
        request.app.content.delete(request, item["id"])
        t = tables(request.app)
        request.session.execute(sql_delete(t["events"]).where(t["events"].c.post_id == item["id"]))
        request.session.execute(sql_delete(t["links"]).where(t["links"].c.event_id == item["id"]))
        request.session.execute(sql_delete(t["recurrence"]).where(t["recurrence"].c.event_id == item["id"]))
        state.changed(request.session, request.app)
        return []
    if item["stored_status"] == "trash":
        raise RestError("rest_already_trashed", "The entity has already been trashed.", 410)
    trashed = request.app.content.trash(request, item["id"])
    sync_status(request.app, request.session, item["id"], "trash", trashed["parent"])
    return []


def get_place(kind: str):
    spec = places.KINDS[kind]

    def handler(request):
        return place_entities(request, kind, [_load(request, spec["type"])])[0]
    return handler


def create_place(kind: str):
    spec = places.KINDS[kind]
    create = places.create_place(kind)

    def handler(request):
        answer = create(request)
        data = place_entities(request, kind, [request.app.content.get(request, answer.data["id"], spec["type"])])[0]
        return RestResponse.created(data, data["rest_url"])
    return handler


def update_place(kind: str):
    spec = places.KINDS[kind]
    update = places.update_place(kind)

    def handler(request):
        _load(request, spec["type"])
        updated = update(request)
        return place_entities(request, kind, [request.app.content.get(request, updated["id"], spec["type"])])[0]
    return handler


def delete_place(kind: str):
    spec = places.KINDS[kind]

    def handler(request):
        item = _load(request, spec["type"])
        if request.params.get("force"):
            request.app.content.delete(request, item["id"])
            links = tables(request.app)["links"]
            request.session.execute(sql_delete(links).where(links.c.kind == kind, links.c.linked_id == item["id"]))
            state.changed(request.session, request.app)
            return []
        if item["stored_status"] == "trash":
            raise RestError("rest_already_trashed", "The entity has already been trashed.", 410)
        request.app.content.trash(request, item["id"])
        return []
    return handler


def docs(request):
    return namespace_document(request, NAMESPACE)


# --- routes ----------------------------------------------------------------------------------

ID = r"/(?P<id>\d+)"
WRITE = "POST, PUT, PATCH"


def routes(app, with_statuses) -> list[Route]:
    """`with_statuses(app, schema, post_type)` gives the write args their status enum (routes.py)."""
    event_create, event_update = (with_statuses(app, schema, EVENT) for schema in (EventCreateArgs, EventUpdateArgs))
    answer = [
        Route(NAMESPACE, "/docs", "GET", docs, args=DocsArgs, title="docs", cacheable=True, changes_with=("settings",)),
        Route(NAMESPACE, "/events", "GET", list_events, args=EventListArgs, cacheable=True, title="events"),
        Route(NAMESPACE, "/events", "POST", create_event, args=event_create, **CREATE, title="events"),
        Route(NAMESPACE, "/events" + ID, "GET", get_event, args=IdArgs, permission=can_read(EVENT), cacheable=True,
              title="event"),
        Route(NAMESPACE, "/events" + ID, WRITE, update_event, args=event_update, partial_args=True,
              permission=can_edit(EVENT), title="event"),
        Route(NAMESPACE, "/events" + ID, "DELETE", delete_event, args=DeleteArgs, permission=can_delete(EVENT),
              title="event"),
    ]
    for kind, create_args, update_args in (("venue", VenueFields, VenueUpdateArgs),
                                           ("organizer", OrganizerFields, OrganizerUpdateArgs)):
        spec = places.KINDS[kind]
        base = "/" + spec["plural"]
        create_args, update_args = (with_statuses(app, schema, spec["type"]) for schema in (create_args, update_args))
        answer += [
            Route(NAMESPACE, base, "GET", list_places(kind), args=PlaceListArgs, cacheable=True, title=spec["plural"]),
            Route(NAMESPACE, base, "POST", create_place(kind), args=create_args, **CREATE,
                  title=spec["plural"]),
            Route(NAMESPACE, base + ID, "GET", get_place(kind), args=IdArgs, permission=can_read(spec["type"]),
                  cacheable=True, title=kind),
            Route(NAMESPACE, base + ID, WRITE, update_place(kind), args=update_args, partial_args=True,
                  permission=can_edit(spec["type"]), title=kind),
            Route(NAMESPACE, base + ID, "DELETE", delete_place(kind), args=DeleteArgs,
                  permission=can_delete(spec["type"]), title=kind),
        ]
    return answer
