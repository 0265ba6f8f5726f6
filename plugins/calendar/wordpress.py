"""Events, venues and organizers to and from a WordPress export: the reference calendar's
`tribe_events`, `tribe_venue` and `tribe_organizer` posts and its `tribe_events_cat` terms.

The reference keeps an event's times as post meta, `_EventStartDate`/`_EventEndDate` in the
event's zone and `_EventStartDateUTC`/`_EventEndDateUTC`, with `_EventTimezone` (an IANA name or
"UTC+2"), `_EventAllDay` ("yes"), `_EventVenueID` and `_EventOrganizerID` (repeated, one per
organizer), `_EventCost`, `_EventCurrencySymbol`, `_EventCurrencyCode`, `_EventCurrencyPosition`,
`_EventURL`, `_EventShowMap`, `_EventShowMapLink`, `_EventHideFromUpcoming`, `_tribe_featured`,
and a sticky event has menu_order -1. Venues carry `_Venue*` meta, organizers `_Organizer*`.
The UTC times win when both are there (they are what the reference computes and queries).
This site's custom fields travel in `_cal_custom_fields` (JSON), a key the reference ignores.
"""

from __future__ import annotations

import datetime
import json
import re
from typing import Iterable

from host.text import sanitize_text_field, sanitize_url
from host.wxr import WxrExport, WxrImport, WxrItem, WxrTerm
from host.wxr_content import (all_items, author_logins, content_request, export_request, item_label, parse_date,
                              sync_post, term_ids, writable_status, wxr_item)

from . import events, linked, state, times
from .names import CATEGORY, EVENT, ORGANIZER, TAG, VENUE

WP_EVENT, WP_VENUE, WP_ORGANIZER, WP_CATEGORY = "tribe_events", "tribe_venue", "tribe_organizer", "tribe_events_cat"
VENUE_KEYS = {"_VenueAddress": "address", "_VenueCity": "city", "_VenueCountry": "country",
              "_VenueProvince": "province", "_VenueState": "state", "_VenueZip": "zip", "_VenuePhone": "phone",
              "_VenueStateProvince": "stateprovince", "_VenueURL": "website"}
VENUE_FLAGS = {"_VenueShowMap": "show_map", "_VenueShowMapLink": "show_map_link"}
ORGANIZER_KEYS = {"_OrganizerPhone": "phone", "_OrganizerWebsite": "website", "_OrganizerEmail": "email"}
CUSTOM_FIELDS = "_cal_custom_fields"
MAX_CUSTOM_FIELDS_BYTES = 64 * 1024
UTC_OFFSET = re.compile(r"UTC([+-])(\d{1,2})(?:[:.](\d{1,2}))?\Z")
TRUE_WORDS = ("1", "yes", "true", "on")
MAX_LINKED = 50  # venues or organizers one event names
STICKY_ORDER = -1  # how the reference marks an event sticky in its month view


def taxonomies() -> dict[str, str]:
    return {WP_CATEGORY: CATEGORY}


def _yes(value: str | None, default: bool = False) -> bool:
    return default if value is None else value.strip().lower() in TRUE_WORDS


def zone_name(value: str | None, site_zone: str) -> str:
    """An IANA zone for the reference's `_EventTimezone`: IANA names as they are, whole-hour "UTC+2"
    offsets as Etc/GMT-2 (POSIX signs are reversed), anything else the site's zone."""
    text = (value or "").strip()
    if text in ("UTC", "UTC+0", "UTC-0"):
        return "UTC"
    match = UTC_OFFSET.match(text)
    if match and not int(match.group(3) or 0) and int(match.group(2)) <= 14:
        sign = "-" if match.group(1) == "+" else "+"
        return f"Etc/GMT{sign}{int(match.group(2))}"
    return text if times.is_zone(text) else site_zone


def _event_time(item: WxrItem, name: str, tz) -> datetime.datetime:
    utc = parse_date(item.meta_value(f"_Event{name}DateUTC"))
    if utc is not None:
        return utc
    local = parse_date(item.meta_value(f"_Event{name}Date"))
    if local is None:
        raise ValueError(f"it has no _Event{name}Date")
    return times.to_utc(local, tz)


def event_row(run: WxrImport, item: WxrItem) -> dict:
    """The `cal_events` columns of an event; ValueError when its times cannot be read."""
    zone = zone_name(item.meta_value("_EventTimezone"), run.site_zone)
    tz = times.zone(zone)
    start, end = _event_time(item, "Start", tz), _event_time(item, "End", tz)
    if end < start:
        raise ValueError("it ends before it starts")
    website = (item.meta_value("_EventURL") or "").strip()
    position = (item.meta_value("_EventCurrencyPosition") or "prefix").strip()
    code = (item.meta_value("_EventCurrencyCode") or "").strip().upper()
    return {"timezone": zone, "start_utc": start, "end_utc": end, "all_day": _yes(item.meta_value("_EventAllDay")),
            "show_map": _yes(item.meta_value("_EventShowMap"), True),
            "show_map_link": _yes(item.meta_value("_EventShowMapLink"), True),
            "hide_from_listings": _yes(item.meta_value("_EventHideFromUpcoming")),
            "featured": _yes(item.meta_value("_tribe_featured")), "sticky": item.menu_order == STICKY_ORDER,
            "cost": sanitize_text_field(item.meta_value("_EventCost") or "")[:255],
            "currency_symbol": sanitize_text_field(item.meta_value("_EventCurrencySymbol") or "")[:10],
            "currency_code": code if re.fullmatch(r"[A-Z]{3}", code) else "",
            "currency_position": "postfix" if position in ("suffix", "postfix") else "prefix",
            "website": sanitize_url(website)[:2000] if website.lower().startswith(("http://", "https://")) else "",
            "custom_fields": _custom_fields(item.meta_value(CUSTOM_FIELDS))}


def _custom_fields(raw: str | None) -> str:
    if not raw:
        return "{}"
    if len(raw) > MAX_CUSTOM_FIELDS_BYTES:
        raise ValueError(f"{CUSTOM_FIELDS} is longer than {MAX_CUSTOM_FIELDS_BYTES} bytes")
    try:
        fields = json.loads(raw)
    except ValueError:
        raise ValueError(f"{CUSTOM_FIELDS} is not JSON") from None
    if not isinstance(fields, dict) or not all(isinstance(field, dict) for field in fields.values()):
        raise ValueError(f"{CUSTOM_FIELDS} is not an object of {{label, value}} objects")
    return json.dumps({events.plain(name): {"label": events.plain(str(field.get("label", name))),
                                            "value": events.plain(str(field.get("value", "")))}
                       for name, field in fields.items()})


# --- import ---------------------------------------------------------------------------------------

def import_item(app, item: WxrItem, run: WxrImport) -> bool | None:
    kind = {WP_EVENT: EVENT, WP_VENUE: VENUE, WP_ORGANIZER: ORGANIZER}.get(item.post_type)
    if kind is None:
        return None
    status = writable_status(run, item, kind)
    if status is None:
        return True
    if kind == EVENT:
        _import_event(run, item, status)
    else:
        _import_place(run, item, kind, status)
    return True


def _import_place(run: WxrImport, item: WxrItem, kind: str, status: str) -> None:
    meta: dict = {}
    keys = VENUE_KEYS if kind == VENUE else ORGANIZER_KEYS
    for old, new in keys.items():
        text = (item.meta_value(old) or "").strip()[:500]
        if new == "website":
            meta[new] = sanitize_url(text) if text.lower().startswith(("http://", "https://")) else ""
        else:
            meta[new] = sanitize_text_field(text)
    if kind == VENUE:
        for old, new in VENUE_FLAGS.items():
            meta[new] = _yes(item.meta_value(old), True)
        try:
            lat, lng = (float(item.meta_value(key) or "") for key in ("_VenueLat", "_VenueLng"))
            if -90 <= lat <= 90 and -180 <= lng <= 180:
                meta.update(geo_lat=lat, geo_lng=lng)
        except ValueError:
            pass  # no coordinates (the reference keeps them only with its maps add-on)
    _new_id, outcome = sync_post(run, content_request(run), item, kind, status=status, meta=meta)
    if outcome != "unchanged":
        state.changed(run.session, run.app)  # events that show the place: their kept list objects go stale
    run.count(outcome)


def _import_event(run: WxrImport, item: WxrItem, status: str) -> None:
    try:
        row = event_row(run, item)
    except ValueError as error:
        run.not_imported(item_label(item), f"its dates cannot be read: {error}")
        return
    if item.meta_value("_EventRecurrence"):
        run.not_imported(f"{item_label(item)} recurrence", "the add-on's recurrence rules are not read; the event "
                                                           "is imported with its first occurrence")
    request = content_request(run)
    wanted_terms = {CATEGORY: term_ids(run, request, CATEGORY, item.terms_of(WP_CATEGORY)),
                    TAG: term_ids(run, request, TAG, item.terms_of("post_tag"))}
    event_id, outcome = sync_post(run, request, item, EVENT, status=status, terms=wanted_terms)
    current = events.rows_of(request, [event_id]).get(event_id)
    stored = run.app.content.get(request, event_id, EVENT)
    if current is None or outcome != "unchanged" or any(current[name] != value for name, value in row.items()):
        events.write_row(request, stored, row, created=current is None)
        outcome = "updated" if outcome == "unchanged" else outcome
    links = {kind: [int(value) for value in item.meta_values(key) if value.strip().isdigit() and len(value) < 12]
             [:MAX_LINKED] for kind, key in (("venue", "_EventVenueID"), ("organizer", "_EventOrganizerID"))}
    if _link(run, request, item, event_id, links):
        outcome = "updated" if outcome == "unchanged" else outcome
    run.count(outcome)
    if any(run.new_id("post", old) is None for olds in links.values() for old in olds if old):
        # A venue or organizer further down the file: link it once every item is read.
        run.after_all(lambda later: _link(later, content_request(later), item, event_id, links, last=True))


def _link(run: WxrImport, request, item: WxrItem, event_id: int, links: dict[str, list[int]],
          last: bool = False) -> bool:
    """Point the event at its venues and organizers (this site's ids); True when that changed anything."""
    stored = linked.links_of(request, [event_id]).get(event_id, {"venue": [], "organizer": []})
    changed = False
    for kind, olds in links.items():
        wanted = [new for new in (run.new_id("post", old) for old in olds if old) if new]
        if last:
            for old in olds:
                if old and run.new_id("post", old) is None:
                    run.not_imported(f"{item_label(item)} {kind} {old}", f"the {kind} is not in the file")
        if wanted != stored[kind]:
            events.write_links(request, event_id, kind, wanted)
            changed = True
    return changed


# --- export ---------------------------------------------------------------------------------------

def export_items(app, export: WxrExport) -> Iterable[WxrItem]:
    yield from _export_places(export, VENUE, WP_VENUE)
    yield from _export_places(export, ORGANIZER, WP_ORGANIZER)
    yield from _export_events(export)


def _export_places(export: WxrExport, kind: str, wordpress_type: str) -> Iterable[WxrItem]:
    items = list(all_items(export, kind))
    logins = author_logins(export, {item["author"] for item in items})
    keys = VENUE_KEYS if kind == VENUE else ORGANIZER_KEYS
    for item in items:
        stored = item["meta"]
        meta = [(old, str(stored.get(new) or "")) for old, new in keys.items()]
        if kind == VENUE:
            meta += [(old, "true" if stored.get(new, True) else "false") for old, new in VENUE_FLAGS.items()]
            if stored.get("geo_lat") is not None and stored.get("geo_lng") is not None:
                meta += [("_VenueLat", repr(float(stored["geo_lat"]))), ("_VenueLng", repr(float(stored["geo_lng"])))]
        yield wxr_item(export, item, wordpress_type, logins, meta=meta)


def _export_events(export: WxrExport) -> Iterable[WxrItem]:
    request = export_request(export)
    items = [item for item in all_items(export, EVENT) if item.get("stored_status", item["status"]) != "cal-ignored"]
    logins = author_logins(export, {item["author"] for item in items})
    for start in range(0, len(items), 100):
        page = items[start:start + 100]
        ids = [item["id"] for item in page]
        rows = events.rows_of(request, ids)
        links = linked.links_of(request, ids)
        names = {taxonomy: {term["id"]: term for term in export.app.content.terms(
            request, taxonomy, ids=[term_id for item in page for term_id, _slug in item["terms"].get(taxonomy, [])])}
            for taxonomy in (CATEGORY, TAG)}
        for item in page:
            row = rows.get(item["id"]) or events.default_row(request, item)
            tz = times.zone(row["timezone"]) if times.is_zone(row["timezone"]) else times.UTC
            start_local, end_local = times.to_local(row["start_utc"], tz), times.to_local(row["end_utc"], tz)
            meta = [("_EventStartDate", times.text(start_local)), ("_EventEndDate", times.text(end_local)),
                    ("_EventStartDateUTC", times.text(row["start_utc"])),
                    ("_EventEndDateUTC", times.text(row["end_utc"])),
                    ("_EventTimezone", row["timezone"]), ("_EventTimezoneAbbr", start_local.tzname() or ""),
                    ("_EventDuration", str(int((row["end_utc"] - row["start_utc"]).total_seconds())))]
            if row["all_day"]:
                meta.append(("_EventAllDay", "yes"))
            item_links = links.get(item["id"], {"venue": [], "organizer": []})
            meta += [("_EventVenueID", str(venue_id)) for venue_id in item_links["venue"]]
            meta += [("_EventOrganizerID", str(organizer_id)) for organizer_id in item_links["organizer"]]
            meta += [("_EventCost", row["cost"]), ("_EventCurrencySymbol", row["currency_symbol"]),
                     ("_EventCurrencyCode", row["currency_code"]),
                     ("_EventCurrencyPosition", "suffix" if row["currency_position"] == "postfix" else "prefix"),
                     ("_EventURL", row["website"]), ("_EventShowMap", "1" if row["show_map"] else ""),
                     ("_EventShowMapLink", "1" if row["show_map_link"] else "")]
            if row["hide_from_listings"]:
                meta.append(("_EventHideFromUpcoming", "yes"))
            if row["featured"]:
                meta.append(("_tribe_featured", "1"))
            if row["custom_fields"] not in ("", "{}"):
                meta.append((CUSTOM_FIELDS, row["custom_fields"]))
            terms = [WxrTerm(wordpress, names[taxonomy][term_id]["slug"], names[taxonomy][term_id]["name"])
                     for taxonomy, wordpress in ((CATEGORY, WP_CATEGORY), (TAG, "post_tag"))
                     for term_id, _slug in item["terms"].get(taxonomy, []) if term_id in names[taxonomy]]
            yield wxr_item(export, item, WP_EVENT, logins, meta=meta, terms=terms,
                           menu_order=STICKY_ORDER if row["sticky"] else item["menu_order"])

