"""Events: the row of `cal_events` beside the post, the event object (§1.3), its JSON-LD, and writes."""

from __future__ import annotations

import hmac
import json
import re

from sqlalchemy import delete, insert, select, update

from host import RestError, invalid_param
from host.text import sanitize_text_field, sanitize_url

from . import common, linked, state, times
from .names import CATEGORY, EVENT, ORGANIZER, TAG, VENUE, VENUE_META, ORGANIZER_META
from .recurrence import annotate
from .settings import settings_of
from .tables import tables

NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


# --- reading ----------------------------------------------------------------------------------


def plain(value):
    """A custom field's name or value without markup (other people's pages show them); others as they are."""
    return sanitize_text_field(value) if isinstance(value, str) else value


def rows_of(request, ids: list[int]) -> dict[int, dict]:
    events = tables(request.app)["events"]
    if not ids:
        return {}
    rows = request.session.execute(select(events).where(events.c.post_id.in_(ids))).all()
    return {row.post_id: dict(row._mapping) for row in rows}


def shape_events(request, items: list[dict], single: bool = False, unlocked: set[int] | None = None,
                 open_all: bool = False) -> list[dict]:
    """Event objects of `items` (dicts of the content service), everything linked read once per page.

    A password-protected event is blanked unless the caller unlocked it or may edit it
    (`open_all`: never blanked, for the list's cache, which blanks per request).
    """
    ids = [item["id"] for item in items]
    rows = rows_of(request, ids)
    links = linked.links_of(request, ids)
    venues = linked.linked_items(request, [v for link in links.values() for v in link["venue"]], VENUE)
    organizers = linked.linked_items(request, [o for link in links.values() for o in link["organizer"]], ORGANIZER)
    terms = {taxonomy: linked.terms_by_id(request, taxonomy, [term_id for item in items
                                                             for term_id, _slug in item["terms"].get(taxonomy, [])])
             for taxonomy in (CATEGORY, TAG)}
    images = linked.images_by_id(request, [item["featured_media"] for item in items]
                                 + [place["featured_media"] for place in (*venues.values(), *organizers.values())])
    shaped = []
    for item in items:
        row = rows.get(item["id"]) or default_row(request, item)
        open_to_caller = open_all or not item["password"] or item["id"] in (unlocked or set()) \
            or request.user.can("edit_post", item)
        shaped.append(event_object(request, item, row, links.get(item["id"], {"venue": [], "organizer": []}),
                                   venues, organizers, terms, images, single, open_to_caller))
    annotate(request, shaped, rows)
    return shaped


def default_row(request, item: dict) -> dict:
    """An event stored through core/v2 without calendar fields: it starts and ends at its publication date."""
    start = item["date_gmt"] or times.to_utc(item["date"], request.app.timezone())
    return {"post_id": item["id"], "status": item["stored_status"], "parent": item["parent"],
            "published_utc": item["date_gmt"], "start_utc": start,
            "end_utc": start, "timezone": site_zone_name(request.app), "all_day": False, "featured": False,
            "sticky": False, "hide_from_listings": False, "show_map": True, "show_map_link": True, "cost": "",
            "currency_symbol": "", "currency_code": "", "currency_position": "prefix", "website": "",
            "custom_fields": "{}", "global_id_lineage": "[]"}


def site_zone_name(app) -> str:
    return app.settings.site.get("timezone_string") or "UTC"


def cost_details(request, row: dict) -> dict:
    config = settings_of(request.app)
    values = [value.replace(",", ".") for value in NUMBER.findall(row["cost"] or "")]
    return {"currency_symbol": row["currency_symbol"] or config.currency_symbol,
            "currency_code": row["currency_code"] or config.currency_code,
            "currency_position": row["currency_position"] or config.currency_position,
            "values": values}


def display_cost(request, row: dict) -> str:
    cost = (row["cost"] or "").strip()
    if not cost:
        return ""
    if NUMBER.fullmatch(cost):
        details = cost_details(request, row)
        if cost in ("0", "0.0", "0.00"):
            return "Free"
        if details["currency_position"] == "prefix":
            return details["currency_symbol"] + cost
        return cost + details["currency_symbol"]
    return cost


def event_object(request, item, row, links, venues, organizers, terms, images, single, open_to_caller) -> dict:
    tz = times.zone(row["timezone"]) if times.is_zone(row["timezone"]) else request.app.timezone()
    start_local, end_local = times.to_local(row["start_utc"], tz), times.to_local(row["end_utc"], tz)
    # A single event's venues and organizers are read as single too: they carry their JSON-LD.
    venue_objects = [linked.venue_object(request, venues[venue_id], images.get(venues[venue_id]["featured_media"],
                                                                                 False), single)
                     for venue_id in links["venue"] if venue_id in venues]
    organizer_objects = [linked.organizer_object(request, organizers[organizer_id],
                                                 images.get(organizers[organizer_id]["featured_media"], False), single)
                         for organizer_id in links["organizer"] if organizer_id in organizers]
    custom = linked.decode(row["custom_fields"], {})
    data = {
        "id": item["id"], **linked.global_ids(request, item, linked.decode(row["global_id_lineage"], [])),
        "author": str(item["author"]), "status": item["status"], **common.post_dates(request, item),
        "url": common.permalink(request, item), "rest_url": common.rest_url(request, f"events/{item['id']}"),
        "title": item["title"].strip(), "description": item["content"].strip(), "excerpt": item["excerpt"].strip(),
        "slug": item["slug"], "image": images.get(item["featured_media"], False),
        "all_day": bool(row["all_day"]),
        "start_date": times.text(start_local), "start_date_details": times.details(start_local),
        "end_date": times.text(end_local), "end_date_details": times.details(end_local),
        "utc_start_date": times.text(row["start_utc"]), "utc_start_date_details": times.details(row["start_utc"]),
        "utc_end_date": times.text(row["end_utc"]), "utc_end_date_details": times.details(row["end_utc"]),
        "timezone": row["timezone"], "timezone_abbr": start_local.tzname() or "",
        "cost": display_cost(request, row), "cost_details": cost_details(request, row),
        "website": (row["website"] and sanitize_url(row["website"])) or common.permalink(request, item),
        "show_map": bool(row["show_map"]), "show_map_link": bool(row["show_map_link"]),
        "hide_from_listings": bool(row["hide_from_listings"]), "sticky": bool(row["sticky"]),
        "featured": bool(row["featured"]),
        "categories": [terms[CATEGORY][term_id] for term_id, _slug in item["terms"].get(CATEGORY, [])
                       if term_id in terms[CATEGORY]],
        "tags": [terms[TAG][term_id] for term_id, _slug in item["terms"].get(TAG, []) if term_id in terms[TAG]],
        "venue": venue_objects[0] if len(venue_objects) == 1 else venue_objects,
        "organizer": organizer_objects,
        "custom_fields": {plain(name): {**field, "label": plain(field.get("label")), "value": plain(field.get("value"))}
                          for name, field in custom.items() if field.get("value") not in ("", None)},
    }
    if not open_to_caller:
        blank_protected(data)
    elif single:
        data["json_ld"] = event_json_ld(request, item, row, tz, venue_objects, organizer_objects, data)
    return data


def blank_protected(data: dict) -> None:
    """§1.2: a password-protected event keeps its place; the sensitive fields are blanked."""
    data.update(description="", excerpt="", website="", cost="", image=False, all_day=None, show_map=None,
                show_map_link=None, hide_from_listings=None, sticky=None, featured=None, categories=[], tags=[],
                venue=[], organizer=[], custom_fields={})
    data["cost_details"] = {"currency_symbol": "", "currency_code": "", "currency_position": "", "values": []}


def event_json_ld(request, item, row, tz, venues, organizers, data) -> dict:
    """A schema.org Event: start and end with their zone offsets, the location and the organizer."""
    if row["all_day"]:
        start = times.to_local(row["start_utc"], tz).date().isoformat()
        end = times.to_local(row["end_utc"], tz).date().isoformat()
    else:
        start, end = times.iso_with_offset(row["start_utc"], tz), times.iso_with_offset(row["end_utc"], tz)
    ld = {"@context": "http://schema.org", "@type": "Event", "name": data["title"],
          "description": data["excerpt"] or data["description"], "url": data["url"],
          "eventAttendanceMode": "https://schema.org/OfflineEventAttendanceMode",
          "eventStatus": "https://schema.org/EventScheduled", "startDate": start, "endDate": end}
    if data["image"]:
        ld["image"] = data["image"]["url"]
    if venues:
        places = [{key: value for key, value in linked.place_json_ld(request, _item_of(venue, VENUE_META)).items()
                   if key != "@context"} for venue in venues]
        ld["location"] = places[0] if len(places) == 1 else places
    if organizers:
        people = [{key: value for key, value in linked.organizer_json_ld(request, _item_of(organizer, ORGANIZER_META))
                   .items() if key != "@context"} for organizer in organizers]
        ld["organizer"] = people[0] if len(people) == 1 else people
    details = cost_details(request, row)
    if details["values"]:
        ld["offers"] = {"@type": "Offer", "price": details["values"][0], "priceCurrency": details["currency_code"],
                        "url": data["website"]}
    return ld


def _item_of(shaped: dict, keys) -> dict:
    """The item fields JSON-LD needs, back from a shaped venue or organizer."""
    return {"id": shaped["id"], "type": VENUE if "venue" in shaped else ORGANIZER,
            "title": shaped.get("venue") or shaped.get("organizer") or "",
            "meta": {key: shaped.get(key, "") for key in (*keys, "geo_lat", "geo_lng") if key in shaped}}


# --- access checks (§1.4) -----------------------------------------------------------------------

def load_event(request, event_id: int) -> dict:
    item = request.app.content.get(request, event_id)
    if item is None:
        raise RestError("rest-event-not-found", "The requested event could not be found.", 404)
    if item["type"] != EVENT:
        raise RestError("rest-invalid-event-id", "The requested post id is not an event.", 400)
    return item


def check_readable(request, item: dict) -> set[int]:
    """The §1.4 checks in order; answers the ids unlocked by the password sent."""
    if item["stored_status"] == "trash":
        raise RestError("event-no-longer-available", "The event is no longer available.", 403)
    if item["status"] != "publish" and not request.user.can("read_post", item):
        raise RestError("event-not-accessible", "The requested event is not accessible.", 403)
    if item["password"] and not request.user.can("edit_post", item):
        sent = request.params.get("password") or ""
        if not hmac.compare_digest(sent.encode(), item["password"].encode()):
            raise RestError("event-password-protected", "The requested event is password protected.", 403)
        return {item["id"]}
    return set()


# --- writing -----------------------------------------------------------------------------------

def event_values(request, params: dict, current: dict | None) -> dict:
    """The `cal_events` columns a create or update sets, checked; `current` is the stored row on update."""
    sent = request.has_param
    values: dict = {}
    zone_name = params.get("timezone") if sent("timezone") and params.get("timezone") else (
        current["timezone"] if current else site_zone_name(request.app))
    try:
        tz = times.zone(zone_name)
    except ValueError:
        raise invalid_param({"timezone": f"{zone_name} is not an IANA time zone (such as Europe/London)."}) \
            from None
    all_day = bool(params.get("all_day")) if sent("all_day") and params.get("all_day") is not None else (
        bool(current["all_day"]) if current else False)
    if current is not None:
        old_zone = times.zone(current["timezone"]) if times.is_zone(current["timezone"]) else tz
        start_local = times.to_local(current["start_utc"], old_zone).replace(tzinfo=None)
        end_local = times.to_local(current["end_utc"], old_zone).replace(tzinfo=None)
    else:
        start_local = end_local = None
    for name in ("start_date", "end_date"):
        if sent(name) and params.get(name):
            try:
                parsed = times.parse_text(params[name], tz)
            except ValueError:
                raise invalid_param({name: "Invalid date."}) from None
            if name == "start_date":
                start_local = parsed
            else:
                end_local = parsed
    if all_day:
        start_local, end_local = times.start_of_day(start_local), times.end_of_day(end_local)
    if end_local < start_local:
        raise invalid_param({"end_date": "The end date must not be before the start date."})
    values.update(timezone=zone_name, all_day=all_day, start_utc=times.to_utc(start_local, tz),
                  end_utc=times.to_utc(end_local, tz))
    for flag in ("show_map", "show_map_link", "hide_from_listings", "sticky", "featured"):
        if sent(flag) and params.get(flag) is not None:
            values[flag] = bool(params[flag])
    if sent("cost"):
        cost = params.get("cost")
        values["cost"] = "" if cost is None else sanitize_text_field(
            (f"{cost:g}" if isinstance(cost, float) else str(cost))[:255])
    if sent("website"):
        website = params.get("website") or ""
        if website and not website.lower().startswith(("http://", "https://")):
            raise invalid_param({"website": "The website must be an http or https URL."})
        values["website"] = sanitize_url(website) if website else ""
    if sent("custom_fields") and params.get("custom_fields") is not None:
        values["custom_fields"] = json.dumps({plain(name): {"label": plain(name), "value": plain(value)}
                                              for name, value in params["custom_fields"].items()})
    return values


def write_row(request, item: dict, values: dict, created: bool) -> None:
    events = tables(request.app)["events"]
    values = {**values, "status": item["stored_status"], "parent": item["parent"], "published_utc": item["date_gmt"]}
    if "start_utc" in values:
        state.changed(request.session, request.app, int((values["end_utc"] - values["start_utc"]).total_seconds()))
    else:
        state.changed(request.session, request.app)
    if created:
        config = settings_of(request.app)
        defaults = {"currency_symbol": config.currency_symbol, "currency_code": config.currency_code,
                    "currency_position": config.currency_position}
        request.session.execute(insert(events).values(post_id=item["id"], **{**defaults, **values}))
    else:
        exists = request.session.execute(select(events.c.post_id).where(events.c.post_id == item["id"])).first()
        if exists is None:
            base = default_row(request, item)
            base.update(values)
            request.session.execute(insert(events).values(**base))
        else:
            request.session.execute(update(events).where(events.c.post_id == item["id"]).values(**values))


def write_links(request, event_id: int, kind: str, ids: list[int]) -> None:
    links = tables(request.app)["links"]
    state.changed(request.session, request.app)
    request.session.execute(delete(links).where(links.c.event_id == event_id, links.c.kind == kind))
    unique = list(dict.fromkeys(ids))
    if unique:
        request.session.execute(insert(links), [{"event_id": event_id, "kind": kind, "linked_id": linked_id,
                                                 "position": position} for position, linked_id in enumerate(unique)])


def sync_status(app, session, item_id: int, status: str, parent: int) -> None:
    """Keep the list's copy of a post's status in step (writes through core/v2 reach it here)."""
    events = tables(app)["events"]
    session.execute(update(events).where(events.c.post_id == item_id).values(status=status, parent=parent))
    state.changed(session, app)
