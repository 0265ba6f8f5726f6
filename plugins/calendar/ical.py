"""iCalendar feeds (RFC 5545, written by the `icalendar` package): event lists and single events.

- `GET cal/events/v1/events.ics?...` takes every filter of the JSON list (§1.2) and answers the
  events that list would show to the same caller, all its pages (at most MAX_FEED_EVENTS).
- `GET cal/events/v1/events/{id}.ics` answers one event after the single event's checks (§1.4).
- `GET /events/feed.ics` is the public subscription of the site's calendar (the default list,
  as an anonymous visitor reads it).

The feed is built from the JSON answers themselves (internal requests as the caller), so the
permission rules and the password blanking are the list's. A repeating event appears once, with
its RRULE and EXDATE, followed by one VEVENT per changed occurrence (same UID, its RECURRENCE-ID,
its own times and texts; STATUS:CANCELLED for a cancelled one). An imported event keeps the UID of
its source. DESCRIPTION keeps the text's line breaks. DTSTAMP is the event's last modification
(RFC 5545 3.8.7.2, for a feed without METHOD), so an unchanged calendar gives the same bytes; ETag is their hash, and
Last-Modified the time this process first produced them. If-None-Match (or, without it,
If-Modified-Since) answers 304.
"""

from __future__ import annotations

import contextlib
import datetime
import email.utils
import hashlib
import html
import json
import re
import threading
from urllib.parse import urlsplit

import icalendar
import nh3

from host import Kept, Page, PageAnswer, PageRequest, RawBody, RestError, RestRequest, RestResponse, Route
from host.stash import StashKey

from . import recurrence, state, times
from .events import rows_of
from .names import NAMESPACE
from .schemas import EventListArgs, EventReadArgs
from .imports import LINEAGE_PREFIX

CONTENT_TYPE = "text/calendar; charset=utf-8"
MAX_FEED_EVENTS = 2000
PAGE = 50
FIRST_SEEN_KEPT = 1024
VEVENTS_KEPT = 5000
BUILDING = StashKey[tuple]("calendar.ical.building")  # (guard, {feed key: (lock, threads using it)})
FEEDS_KEPT = 32  # anonymous feeds (a 1,000-event feed is ~400 kB)
FEEDS_BYTES = 8 * 1024 * 1024  # ... and at most this much of them (2,000-event feeds are ~800 kB each)
FEED_SECONDS = 60  # written VEVENTs, kept by a hash of everything they show
ZONE_REACH_YEARS = 100  # a VTIMEZONE covers the events' dates within this many years of today
FEED_FIELDS = ("id", "title", "description", "venue", "url", "status", "modified_utc", "date_utc", "categories",
               "all_day")  # all_day is None on an event blanked for the caller (§1.2)
# Markup that ends a line in HTML text (a DESCRIPTION keeps those breaks). A tag's scan stops at the
# next "<", so every character is read a bounded number of times (linear).
LINE_BREAK_TAGS = re.compile(r"<\s*(?:br|/div|/li|/tr)\b[^<>]*>", re.IGNORECASE)
PARAGRAPH_END_TAGS = re.compile(r"<\s*(?:/p|/h[1-6]|/blockquote|/ul|/ol|/table)\b[^<>]*>", re.IGNORECASE)
HTML_BLOCK = re.compile(r"<\s*/?\s*(?:p|br|div|li|ul|ol|h[1-6]|tr|table|blockquote)\b", re.IGNORECASE)
SPACES = re.compile(r"[ \t\f\v\u00a0]+")
VENUE_FIELDS = ("venue", "address", "city", "zip")
LIST_FILTERS = ("start_date", "end_date", "search", "categories", "tags", "venue", "organizer", "featured", "status",
                "include", "post_parent", "strict_dates", "starts_before", "starts_after", "ends_before",
                "ends_after", "geoloc", "geoloc_lat", "geoloc_lng", "ticketed")


def _plain(text: str | None) -> str:
    return " ".join(html.unescape(nh3.clean(text or "", tags=set())).split())


def _text(text: str | None) -> str:
    """Stored description as iCalendar text with its line breaks: plain text keeps its own; HTML gets
    one where a paragraph, line break or list item ends (its own newlines are spaces, as HTML reads them)."""
    text = (text or "").replace("\r\n", "\n").replace("\r", "\n")
    if HTML_BLOCK.search(text):
        text = PARAGRAPH_END_TAGS.sub("\n\n", LINE_BREAK_TAGS.sub("\n", text.replace("\n", " ")))
    lines = [SPACES.sub(" ", line).strip() for line in html.unescape(nh3.clean(text, tags=set())).split("\n")]
    kept: list[str] = []
    for line in lines:  # at most one empty line in a row (a paragraph's end)
        if line or (kept and kept[-1]):
            kept.append(line)
    return "\n".join(kept).strip("\n")


def source_uid(lineage_text: str | None) -> str | None:
    """The UID an imported event had in its source (its `ical?uid=` lineage entry), None for others."""
    try:
        lineage = json.loads(lineage_text or "[]")
    except ValueError:
        return None
    if not isinstance(lineage, list):
        return None
    found = [entry[len(LINEAGE_PREFIX):] for entry in lineage
             if isinstance(entry, str) and entry.startswith(LINEAGE_PREFIX)]
    return (found[-1] or None) if found else None


def _utc(text: str) -> datetime.datetime:
    return datetime.datetime.strptime(text, times.FORMAT).replace(tzinfo=datetime.timezone.utc)


def _location(data: dict) -> str:
    venue = data.get("venue")
    venues = venue if isinstance(venue, list) else [venue]
    parts = []
    for place in venues:
        if isinstance(place, dict):
            parts.append(", ".join(value for value in (place.get("venue"), place.get("address"), place.get("city"),
                                                        place.get("zip")) if value))
    return "; ".join(part for part in parts if part)


def _within_reach(day: datetime.date) -> datetime.date:
    """`day`, moved into ZONE_REACH_YEARS of today: the span a VTIMEZONE covers.

    icalendar writes every clock change of the span, and event dates run from year 1 to 9998: two
    events that far apart made every feed showing both write some 16,000 of them (270 kB, 0.35 s).
    Past the span, clients keep the nearest observance.
    """
    today = datetime.date.today()
    reach = datetime.timedelta(days=366 * ZONE_REACH_YEARS)
    return min(max(day, today - reach), today + reach)


def build_calendar(request, events: list[dict]) -> bytes:
    """The VCALENDAR of `events` (event objects of cal/events/v1): one VEVENT each, a VTIMEZONE per zone."""
    # UIDs identify events in subscribers' calendars: the site address's host, never the request's.
    host = urlsplit(request.app.site_address(request.session)).hostname or "localhost"
    ids = list(dict.fromkeys(data["id"] for data in events))
    rows = rows_of(request, ids)
    series = recurrence.rows_of(request.session, request.app, ids)
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//sitehost//calendar//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("x-wr-calname", request.app.settings.site.get("name", "") or "Events")
    zones: dict[str, list[datetime.date]] = {}
    seen: set[int] = set()
    # Kept by a hash of everything a VEVENT shows: the key is its own version.
    kept = request.app.kept("calendar.ical.vevents", VEVENTS_KEPT)
    parts: list[bytes] = []
    for data in events:
        row = rows.get(data["id"])
        if row is None or data["id"] in seen:
            continue
        seen.add(data["id"])
        zone_name = row["timezone"] if times.is_zone(row["timezone"]) else "UTC"
        repeating = series.get(data["id"])
        uid = source_uid(row["global_id_lineage"]) or f"event-{data['id']}@{host}"
        changed = [repeating["overrides"][original] for original in
                   recurrence.changed_originals(request.app, row, repeating)] if repeating else []
        fields = [uid, data["id"], data["title"], data.get("description"), _location(data), data["url"],
                  data["status"], data["modified_utc"], data["date_utc"], data.get("all_day") is None,
                  [term.get("name") for term in data.get("categories") or [] if isinstance(term, dict)],
                  row["start_utc"].isoformat(), row["end_utc"].isoformat(), zone_name, bool(row["all_day"]),
                  repeating and repeating["rule"],
                  [moment.isoformat() for moment in (repeating or {}).get("exdates", [])],
                  [sorted(override.items()) for override in changed]]
        key = hashlib.sha256(json.dumps(fields, default=str).encode()).digest()
        text = kept.get(key, ())
        if text is None:
            master = _vevent(data, row, zone_name, repeating, uid)
            text = master.to_ical() + b"".join(_changed_vevent(master, data, row, zone_name, override).to_ical()
                                               for override in changed)
            kept.put(key, (), text)
        parts.append(text)
        if not row["all_day"]:
            last = _within_reach(row["end_utc"].date()) + datetime.timedelta(
                days=366 * (recurrence.HORIZON_YEARS if repeating else 1))
            zones.setdefault(zone_name, []).extend([_within_reach(row["start_utc"].date()), last])
    if not zones:  # RFC 5545 wants one component at least: an empty feed carries the site's zone
        today = datetime.date.today()
        zones[request.app.settings.site.get("timezone_string") or "UTC"] = [today, today + datetime.timedelta(days=366)]
    for zone_name, dates in sorted(zones.items()):
        first, last = min(dates) - datetime.timedelta(days=366), max(dates)
        calendar.add_component(icalendar.Timezone.from_tzinfo(times.zone(zone_name), tzid=zone_name,
                                                              first_date=first, last_date=last))
    # VTIMEZONEs before the events that use them; each VEVENT as icalendar wrote it (kept by content).
    head, tail = calendar.to_ical().rsplit(b"END:VCALENDAR\r\n", 1)
    return head + b"".join(parts) + b"END:VCALENDAR\r\n" + tail


def _vevent(data: dict, row: dict, zone_name: str, repeating: dict | None, uid: str) -> icalendar.Event:
    """One event's VEVENT: its timing (recurrence.vevent), DTSTAMP = its last change, and its texts."""
    component = recurrence.vevent(uid, row["start_utc"], row["end_utc"],
                                  bool(row["all_day"]), times.zone(zone_name), repeating and repeating["rule"],
                                  repeating["exdates"] if repeating else [])
    modified = _utc(data["modified_utc"])
    component.add("dtstamp", modified)
    component.add("last-modified", modified)
    component.add("created", _utc(data["date_utc"]))
    component.add("summary", _plain(data["title"]) or "(untitled)")
    description = _text(data.get("description"))
    if description:
        component.add("description", description)
    location = _location(data)
    if location:
        component.add("location", location)
    component.add("url", data["url"])
    categories = [_plain(term.get("name")) for term in data.get("categories") or [] if isinstance(term, dict)]
    if categories:
        component.add("categories", categories)
    component.add("status", "CONFIRMED" if data["status"] == "publish" else "TENTATIVE")
    return component


def _changed_vevent(master: icalendar.Event, data: dict, row: dict, zone_name: str,
                    override: dict) -> icalendar.Event:
    """The VEVENT of one changed occurrence: the master's UID, RECURRENCE-ID = the start the rule gives
    it, its own times, and its own texts where it has them (the series' elsewhere, as the list shows it).
    An event blanked for the caller (§1.2) shows no more of its occurrences than of itself."""
    all_day, tz = bool(row["all_day"]), times.zone(zone_name)
    component = recurrence.vevent(str(master["UID"]), override["start_utc"], override["end_utc"], all_day, tz,
                                  None, [])
    original = times.to_local(override["original_utc"], tz)
    component.add("recurrence-id", original.date() if all_day else original)
    for name in ("DTSTAMP", "LAST-MODIFIED", "CREATED"):
        component.add(name, master.decoded(name))
    blanked = data.get("all_day") is None
    title = _plain(override["title"]) if override["title"] is not None else None
    component.add("summary", title or str(master["SUMMARY"]))
    description = _text(override["description"]) if override["description"] is not None and not blanked \
        else str(master.get("DESCRIPTION") or "")
    if description:
        component.add("description", description)
    location = " ".join(override["location"].split()) if override["location"] is not None and not blanked \
        else str(master.get("LOCATION") or "")
    if location:
        component.add("location", location)
    component.add("url", str(master["URL"]))
    if "CATEGORIES" in master:
        component.add("categories", list(master["CATEGORIES"].cats))
    component.add("status", "CANCELLED" if override["cancelled"] else str(master["STATUS"]))
    return component


def answer(request_headers, body: bytes, first_seen: Kept, filename: str) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) with ETag and Last-Modified; 304 when the client has this body already."""
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    seen = first_seen.get_or_build(etag, (), lambda: now)  # the body's digest is its own version
    headers = {"ETag": etag, "Last-Modified": email.utils.format_datetime(seen, usegmt=True),
               "Cache-Control": "no-cache", "Content-Disposition": f'inline; filename="{filename}"'}
    if_none_match = request_headers("if-none-match")
    if if_none_match is not None:
        tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
        if etag in tags or "*" in tags:
            return 304, headers, b""
    else:
        since = request_headers("if-modified-since")
        if since:
            try:
                parsed = email.utils.parsedate_to_datetime(since)
            except (TypeError, ValueError):
                parsed = None
            if parsed is not None and parsed.tzinfo is not None and seen <= parsed:
                return 304, headers, b""
    return 200, headers, body


def _first_seen(app) -> Kept:
    return app.kept("calendar.ical.first_seen", FIRST_SEEN_KEPT)


def _respond(request, body: bytes, filename: str):
    status, headers, body = answer(request.header, body, _first_seen(request.app), filename)
    if status == 304:
        return RestResponse(RawBody(b"", CONTENT_TYPE), 304, headers)
    return RestResponse(RawBody(body, CONTENT_TYPE), 200, headers)


def _feed_fields(data: dict) -> dict:
    """What a VEVENT shows of an event object. A 1,000-event feed held whole event objects
    (~10 KB each as dicts) until its last page was read: this keeps a worker's peak far lower."""
    slim = {name: data.get(name) for name in FEED_FIELDS}
    venue = slim["venue"]
    places = [place for place in (venue if isinstance(venue, list) else [venue]) if isinstance(place, dict)]
    slim["venue"] = [{name: place.get(name) for name in VENUE_FIELDS} for place in places]
    slim["categories"] = [{"name": term.get("name")} for term in data.get("categories") or []
                          if isinstance(term, dict)]
    return slim


def list_events(request) -> list[dict]:
    """Every event of the JSON list with the caller's filters (its pages read as the caller),
    with only the fields a VEVENT shows (_feed_fields)."""
    filters = {name: request.params[name] for name in LIST_FILTERS
               if request.has_param(name) and request.params.get(name) not in (None, "", [])}
    if filters.get("strict_dates") is False:
        filters.pop("strict_dates")
    found: list[dict] = []
    page = 1
    while len(found) < MAX_FEED_EVENTS:
        # REST on purpose: the feed is this plugin's own route's answers (checks, password, paging).
        reply = request.internal_request("GET", f"/{NAMESPACE}/events", page=page, per_page=PAGE, **filters)
        if reply.status == 404 and page > 1:
            break
        if not reply.ok:
            data = reply.data if isinstance(reply.data, dict) else {}
            raise RestError(data.get("code", "rest_invalid_param"), data.get("message", "Invalid parameters."),
                            reply.status, data.get("data"))
        found.extend(_feed_fields(data) for data in reply.data["events"])
        if page >= reply.data["total_pages"]:
            break
        page += 1
    return found[:MAX_FEED_EVENTS]


def events_feed(request):
    """GET events.ics: the JSON list's events, with its filters and permission rules, as iCalendar.

    Calendar apps poll: an anonymous feed is kept per (site, query, calendar version, day) for a
    minute in this process (every calendar write bumps the version; the minute covers scheduled
    publication). Signed-in callers' feeds depend on who they are and are always built.
    """
    if request.user.is_authenticated:
        return _respond(request, build_calendar(request, list_events(request)), "events.ics")
    version, _longest = state.read(request.session, request.app)
    query = tuple(sorted((name, str(value)) for name, value in request.query.items()))
    key = (request.base_url, query)
    kept_version = (version, datetime.date.today())
    kept = request.app.kept("calendar.ical.feeds", FEEDS_KEPT, FEED_SECONDS, max_bytes=FEEDS_BYTES)
    found = kept.get(key, kept_version)
    if found is None:
        # One build per feed at a time: a thread that finds it being built waits for it instead of
        # building a second copy alongside (each build holds some MB until it ends, and CPU).
        with _building(request.app, key):
            found = kept.get(key, kept_version)
            if found is None:
                found = build_calendar(request, list_events(request))
                kept.put(key, kept_version, found)
    return _respond(request, found, "events.ics")


@contextlib.contextmanager
def _building(app, key):
    """Hold the build lock of feed `key` (shared by the threads that want it, dropped after)."""
    guard, locks = app.stash.setdefault_by(BUILDING, lambda: (threading.Lock(), {}))
    with guard:
        lock, users = locks.get(key, (threading.Lock(), 0))
        locks[key] = (lock, users + 1)
    try:
        with lock:
            yield
    finally:
        with guard:
            lock, users = locks[key]
            if users == 1:
                del locks[key]
            else:
                locks[key] = (lock, users - 1)


def event_feed(request):
    """GET events/{id}.ics: one event, after the checks of GET events/{id} (password included)."""
    query = {"password": request.params["password"]} if request.params.get("password") else {}
    # REST on purpose: the feed is this plugin's own route's answers (checks, password, paging).
    reply = request.internal_request("GET", f"/{NAMESPACE}/events/{int(request.params['id'])}", **query)
    if not reply.ok:
        data = reply.data if isinstance(reply.data, dict) else {}
        raise RestError(data.get("code", "rest-event-not-found"), data.get("message", ""), reply.status,
                        {key: value for key, value in (data.get("data") or {}).items() if key != "status"})
    return _respond(request, build_calendar(request, [reply.data]), f"event-{reply.data['id']}.ics")


def feed_page(app, request: PageRequest):
    """GET /events/feed.ics: the site's public calendar, as an anonymous visitor lists it."""
    path = f"/{NAMESPACE}/events.ics"
    reader = RestRequest(app, "GET", path, [], dict(request.headers), internal=True, base_url=app.rest_base_url(request.environ))
    try:
        status, headers, data = app.rest.run_and_shape(reader)
    finally:
        reader.finish(success=True)
    body = data.body if isinstance(data, RawBody) else b""
    response_headers = {name: value for name, value in headers.items()
                        if name in ("ETag", "Last-Modified", "Cache-Control", "Content-Disposition")}
    if status not in (200, 304):
        raise RuntimeError(f"the events feed answered {status}")  # the site's 500 page, and the error logged
    return PageAnswer(body if status == 200 else b"", status, content_type=CONTENT_TYPE, headers=response_headers)


def routes(app) -> list:
    # Written `events.ics` (the registry reads a dot inside a word as literal): discovery clients
    # (node-wpapi) take a route's literal parts as written, and `events\.ics` is no path to request.
    return [Route(NAMESPACE, "/events.ics", "GET", events_feed, args=EventListArgs, title="events feed",
                  content_type="text/calendar", cacheable=True),
            Route(NAMESPACE, r"/events/(?P<id>\d+)\.ics", "GET", event_feed, args=EventReadArgs, title="event feed",
                  content_type="text/calendar", cacheable=True)]


def pages() -> list:
    return [Page("/events/feed.ics", ("GET", "HEAD"), feed_page, name="calendar-feed")]
